package pages

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// The API reference page is rendered from openapi.json, so that it says
// what the document says and nothing else: every path and operation, its
// parameters, its answers with their headers and an example, the answers
// any path may give, and every header.

type referenceView struct {
	Summary, OpenAPI, Version, Document string
	Intro                               []introSection
	Paths                               []referencePath
	AnyPath                             responsesView
	Headers                             []referenceHeader
}

type introSection struct {
	Heading string
	Blocks  []introBlock
}

// introBlock is a paragraph, or a list when Items is set.
type introBlock struct {
	Text  template.HTML
	Items []template.HTML
}

type referencePath struct {
	ID, Path, Summary string
	Operations        []referenceOperation
}

type referenceOperation struct {
	responsesView
	ID, Method, Path, Summary string
	Description               template.HTML
	Parameters                []referenceParameter
}

type referenceParameter struct {
	Name, In, Default string
	Schema            template.HTML
	Description       template.HTML
	Required          bool
}

type responsesView struct {
	Caption   string
	Responses []referenceResponse
	Examples  []referenceExample
}

type referenceResponse struct {
	Status      string
	Description template.HTML
	MediaTypes  []string
	Headers     []headerLink
}

type headerLink struct{ ID, Name string }

type referenceExample struct {
	Status, Summary, JSON string
}

type referenceHeader struct {
	ID, Name    string
	Description template.HTML
}

// ordered is a JSON object with its keys in the document's order, which
// a map would lose.
type ordered struct {
	keys   []string
	values map[string]json.RawMessage
}

func decodeOrdered(raw json.RawMessage) (ordered, error) {
	o := ordered{values: map[string]json.RawMessage{}}
	if len(raw) == 0 {
		return o, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return o, fmt.Errorf("not a JSON object: %.40s", raw)
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return o, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return o, err
		}
		key := t.(string) // an object's keys are strings
		o.keys = append(o.keys, key)
		o.values[key] = v
	}
	return o, nil
}

// spec is an OpenAPI document being read, for its references.
type spec struct {
	components map[string]ordered // by kind: parameters, responses, headers
}

// resolve follows a "$ref" to a component; anything else is returned as
// it is.
func (s spec) resolve(raw json.RawMessage) (json.RawMessage, string, error) {
	var r struct {
		Ref string `json:"$ref"`
	}
	_ = json.Unmarshal(raw, &r)
	if r.Ref == "" {
		return raw, "", nil
	}
	parts := strings.Split(strings.TrimPrefix(r.Ref, "#/components/"), "/")
	if len(parts) != 2 {
		return nil, "", fmt.Errorf("unsupported reference %q", r.Ref)
	}
	v, ok := s.components[parts[0]].values[parts[1]]
	if !ok {
		return nil, "", fmt.Errorf("reference %q names nothing", r.Ref)
	}
	return v, parts[1], nil
}

// newReference reads an OpenAPI document into the reference page's view.
// references keeps the last document read, so that a reload, which passes
// the same document, does not read it again.
var references struct {
	sync.Mutex
	doc, api string
	view     referenceView
}

// newReference reads the reference page's view from an OpenAPI document;
// api is the API's base path, where the document is served.
func newReference(doc []byte, api string) (referenceView, error) {
	references.Lock()
	defer references.Unlock()
	if references.doc == string(doc) && references.api == api {
		return references.view, nil
	}
	v, err := readReference(doc, api)
	if err == nil {
		references.doc, references.api, references.view = string(doc), api, v
	}
	return v, err
}

func readReference(doc []byte, api string) (referenceView, error) {
	var top struct {
		OpenAPI string `json:"openapi"`
		Info    struct {
			Summary     string `json:"summary"`
			Description string `json:"description"`
			Version     string `json:"version"`
		} `json:"info"`
		Paths      json.RawMessage            `json:"paths"`
		Components map[string]json.RawMessage `json:"components"`
	}
	if err := json.Unmarshal(doc, &top); err != nil {
		return referenceView{}, err
	}
	s := spec{components: map[string]ordered{}}
	for kind, raw := range top.Components {
		o, err := decodeOrdered(raw)
		if err != nil {
			return referenceView{}, fmt.Errorf("components.%s: %w", kind, err)
		}
		s.components[kind] = o
	}
	v := referenceView{
		Summary: top.Info.Summary, OpenAPI: top.OpenAPI, Version: top.Info.Version,
		Document: api + "/openapi.json", Intro: introOf(top.Info.Description),
	}
	paths, err := decodeOrdered(top.Paths)
	if err != nil {
		return v, fmt.Errorf("paths: %w", err)
	}
	used := map[string]bool{} // the response components operations name
	// Paths that differ only in their punctuation ("/api/public/v1/" and
	// "/api/public/v1") would share their anchors: a later one gets "-2".
	anchors := map[string]int{}
	for _, path := range paths.keys {
		anchors[anchor(path)]++
		suffix := ""
		if n := anchors[anchor(path)]; n > 1 {
			suffix = "-" + strconv.Itoa(n)
		}
		rp, err := s.path(path, paths.values[path], suffix, used)
		if err != nil {
			return v, err
		}
		v.Paths = append(v.Paths, rp)
	}
	if v.AnyPath, err = s.anyPath(used); err != nil {
		return v, err
	}
	v.Headers, err = s.headers()
	return v, err
}

// path reads one path item of the document and its operations; suffix
// tells its anchors from those of a path that differs only in its
// punctuation, and used collects the response components they name.
func (s spec) path(path string, raw json.RawMessage, suffix string, used map[string]bool) (referencePath, error) {
	item, err := decodeOrdered(raw)
	if err != nil {
		return referencePath{}, fmt.Errorf("paths.%s: %w", path, err)
	}
	rp := referencePath{ID: "path-" + anchor(path) + suffix, Path: path}
	// Parameters given for the whole path apply to each operation.
	var shared []json.RawMessage
	if raw, ok := item.values["parameters"]; ok {
		if err := json.Unmarshal(raw, &shared); err != nil {
			return rp, fmt.Errorf("paths.%s.parameters: %w", path, err)
		}
	}
	for _, method := range item.keys {
		if !httpMethods[method] { // summary, description, parameters, servers
			continue
		}
		ro, err := s.operation(path, method, item.values[method], shared, suffix, used)
		if err != nil {
			return rp, err
		}
		if ro.Method == "GET" {
			rp.Summary = ro.Summary
		}
		rp.Operations = append(rp.Operations, ro)
	}
	return rp, nil
}

// operation reads one operation of a path: its parameters, those shared
// by the path first, and its answers.
func (s spec) operation(path, method string, raw json.RawMessage, shared []json.RawMessage, suffix string, used map[string]bool) (referenceOperation, error) {
	var op struct {
		Summary     string            `json:"summary"`
		Description string            `json:"description"`
		Parameters  []json.RawMessage `json:"parameters"`
		Responses   json.RawMessage   `json:"responses"`
	}
	if err := json.Unmarshal(raw, &op); err != nil {
		return referenceOperation{}, fmt.Errorf("paths.%s.%s: %w", path, method, err)
	}
	m := strings.ToUpper(method)
	ro := referenceOperation{
		ID: anchor(m+"-"+path) + suffix, Method: m, Path: path, Summary: op.Summary,
		Description: inline(op.Description),
	}
	for _, raw := range append(slices.Clone(shared), op.Parameters...) {
		param, err := s.parameter(raw)
		if err != nil {
			return ro, fmt.Errorf("paths.%s.%s: %w", path, method, err)
		}
		ro.Parameters = append(ro.Parameters, param)
	}
	responses, err := decodeOrdered(op.Responses)
	if err != nil {
		return ro, fmt.Errorf("paths.%s.%s.responses: %w", path, method, err)
	}
	ro.responsesView, err = s.responses(responses, m != "HEAD", used)
	if err != nil {
		return ro, fmt.Errorf("paths.%s.%s.responses: %w", path, method, err)
	}
	ro.Caption = "The answers to " + m + " " + path
	return ro, nil
}

// anyPath is the answers no operation names (used holds those some
// operation does): those of paths that are no endpoint's, or of methods
// an endpoint does not answer.
func (s spec) anyPath(used map[string]bool) (responsesView, error) {
	rest := ordered{values: map[string]json.RawMessage{}}
	for _, name := range s.components["responses"].keys {
		if !used[name] {
			raw := s.components["responses"].values[name]
			var r struct {
				Description string `json:"description"`
			}
			_ = json.Unmarshal(raw, &r)
			status := statusOfComponent(name)
			if status == "" {
				continue
			}
			rest.keys = append(rest.keys, status)
			rest.values[status] = json.RawMessage(`{"$ref":"#/components/responses/` + name + `"}`)
		}
	}
	view, err := s.responses(rest, true, map[string]bool{})
	if err != nil {
		return view, err
	}
	view.Caption = "The answers any path may give"
	return view, nil
}

// headers are the response headers the document describes.
func (s spec) headers() ([]referenceHeader, error) {
	var list []referenceHeader
	headers := s.components["headers"]
	for _, name := range headers.keys {
		var h struct {
			Description string `json:"description"`
		}
		if err := json.Unmarshal(headers.values[name], &h); err != nil {
			return list, fmt.Errorf("components.headers.%s: %w", name, err)
		}
		list = append(list, referenceHeader{ID: "header-" + anchor(name), Name: headerName(name), Description: inline(h.Description)})
	}
	return list, nil
}

// httpMethods are the keys of a path item that are operations.
var httpMethods = map[string]bool{"get": true, "put": true, "post": true, "delete": true, "options": true, "head": true, "patch": true, "trace": true}

// statusOfComponent is the status of the response components that answer
// any path, or "" for the others.
func statusOfComponent(name string) string {
	switch name {
	case "NotFound":
		return "404"
	case "MethodNotAllowed":
		return "405"
	}
	return ""
}

// headerName is the header a component describes: components that
// describe one header in different answers are named "ETag-Weak",
// "Cache-Control-No-Store", "Vary-Preflight".
func headerName(component string) string {
	for _, suffix := range []string{"-Weak", "-Strong", "-Public", "-No-Store", "-Preflight"} {
		if name, ok := strings.CutSuffix(component, suffix); ok {
			return name
		}
	}
	return component
}

func (s spec) parameter(raw json.RawMessage) (referenceParameter, error) {
	raw, _, err := s.resolve(raw)
	if err != nil {
		return referenceParameter{}, err
	}
	var p struct {
		Name        string `json:"name"`
		In          string `json:"in"`
		Description string `json:"description"`
		Required    bool   `json:"required"`
		Schema      struct {
			Type    string          `json:"type"`
			Pattern string          `json:"pattern"`
			Minimum *int            `json:"minimum"`
			Maximum *int            `json:"maximum"`
			Default json.RawMessage `json:"default"`
		} `json:"schema"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return referenceParameter{}, err
	}
	schema := "<code>" + template.HTMLEscapeString(p.Schema.Type) + "</code>"
	switch {
	case p.Schema.Minimum != nil && p.Schema.Maximum != nil:
		schema += " from " + strconv.Itoa(*p.Schema.Minimum) + " to " + strconv.Itoa(*p.Schema.Maximum)
	case p.Schema.Pattern != "":
		schema += " matching <code>" + template.HTMLEscapeString(p.Schema.Pattern) + "</code>"
	}
	def := "none"
	if len(p.Schema.Default) > 0 {
		def = string(p.Schema.Default)
	}
	return referenceParameter{
		Name: p.Name, In: p.In, Default: def, Required: p.Required,
		Schema: template.HTML(schema), Description: inline(p.Description),
	}, nil
}

// responses reads an operation's responses, with the example of each
// that has one when examples is set; used collects the names of the
// response components they refer to.
func (s spec) responses(responses ordered, examples bool, used map[string]bool) (responsesView, error) {
	var v responsesView
	statuses := slices.Clone(responses.keys)
	slices.Sort(statuses)
	for _, status := range statuses {
		raw, name, err := s.resolve(responses.values[status])
		if err != nil {
			return v, err
		}
		used[name] = true
		var r struct {
			Description string                     `json:"description"`
			Headers     json.RawMessage            `json:"headers"`
			Content     map[string]json.RawMessage `json:"content"`
		}
		if err := json.Unmarshal(raw, &r); err != nil {
			return v, fmt.Errorf("%s: %w", status, err)
		}
		rr := referenceResponse{Status: status, Description: inline(r.Description)}
		headers, err := decodeOrdered(r.Headers)
		if err != nil {
			return v, fmt.Errorf("%s.headers: %w", status, err)
		}
		for _, h := range headers.keys {
			_, component, err := s.resolve(headers.values[h])
			if err != nil {
				return v, err
			}
			if component == "" {
				component = h
			}
			rr.Headers = append(rr.Headers, headerLink{ID: "header-" + anchor(component), Name: h})
		}
		for _, mt := range slices.Sorted(maps.Keys(r.Content)) {
			rr.MediaTypes = append(rr.MediaTypes, mt)
			if !examples {
				continue
			}
			var media struct {
				Examples json.RawMessage `json:"examples"`
			}
			if err := json.Unmarshal(r.Content[mt], &media); err != nil {
				return v, err
			}
			exs, err := decodeOrdered(media.Examples)
			if err != nil {
				return v, err
			}
			if len(exs.keys) == 0 {
				continue
			}
			// The first example: one answer is enough to show its shape.
			var ex struct {
				Summary string          `json:"summary"`
				Value   json.RawMessage `json:"value"`
			}
			if err := json.Unmarshal(exs.values[exs.keys[0]], &ex); err != nil {
				return v, err
			}
			var pretty bytes.Buffer
			if err := json.Indent(&pretty, ex.Value, "", "  "); err != nil {
				return v, err
			}
			v.Examples = append(v.Examples, referenceExample{Status: status, Summary: ex.Summary, JSON: pretty.String()})
		}
		v.Responses = append(v.Responses, rr)
	}
	return v, nil
}

// anchor makes an id attribute of text: letters, digits and hyphens. A
// path's trailing slash is kept as "-slash", so that the API's index at
// /api/public/v1/ and at /api/public/v1 have ids of their own.
func anchor(text string) string {
	if len(text) > 1 && strings.HasSuffix(text, "/") {
		return anchor(strings.TrimSuffix(text, "/")) + "-slash"
	}
	var b strings.Builder
	hyphen := false
	for _, r := range strings.ToLower(text) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			if hyphen && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			hyphen = false
		} else {
			hyphen = true
		}
	}
	if b.Len() == 0 {
		return "root"
	}
	return b.String()
}

// inline escapes text and shows its `code spans` as code: the descriptions
// of openapi.json are CommonMark, of which they use little else inline.
func inline(text string) template.HTML {
	var b strings.Builder
	parts := strings.Split(text, "`")
	if len(parts)%2 == 0 { // an unmatched backquote: plain text
		return template.HTML(template.HTMLEscapeString(text))
	}
	for i, part := range parts {
		if i%2 == 1 {
			b.WriteString("<code>" + template.HTMLEscapeString(part) + "</code>")
		} else {
			b.WriteString(template.HTMLEscapeString(part))
		}
	}
	return template.HTML(b.String())
}

// introOf reads the description of the document: sections under "## "
// headings, of paragraphs and "- " lists.
func introOf(text string) []introSection {
	sections := []introSection{{}}
	for _, block := range strings.Split(strings.TrimSpace(text), "\n\n") {
		block = strings.TrimSpace(block)
		cur := &sections[len(sections)-1]
		switch {
		case strings.HasPrefix(block, "## "):
			sections = append(sections, introSection{Heading: strings.TrimPrefix(block, "## ")})
		case strings.HasPrefix(block, "- "):
			var items []template.HTML
			for _, item := range strings.Split("\n"+block, "\n- ")[1:] {
				items = append(items, inline(strings.Join(strings.Fields(item), " ")))
			}
			cur.Blocks = append(cur.Blocks, introBlock{Items: items})
		default:
			cur.Blocks = append(cur.Blocks, introBlock{Text: inline(strings.Join(strings.Fields(block), " "))})
		}
	}
	if len(sections[0].Blocks) == 0 {
		sections = sections[1:]
	}
	return sections
}
