package dataset

// The records' optional text fields are pointers, null in JSON when left
// out: Optional and Text go between them and plain text, for the sheets
// that fill them and the pages and cells that show them.

// Optional is an optional field holding s: null when s is empty.
func Optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// Text is the text of an optional field: "" when it is null.
func Text(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
