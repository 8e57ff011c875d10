package pages

import "testing"

// TestReferencePathParameters: a path item's own keys (its summary, its
// parameters) are no operations, and its parameters apply to each one.
func TestReferencePathParameters(t *testing.T) {
	doc := `{"openapi":"3.1.0","info":{"summary":"s","description":"d","version":"1"},
"paths":{"/api/public/v1/things/{key}":{"summary":"things","parameters":[{"name":"key","in":"path","required":true,"schema":{"type":"string"}}],
"get":{"summary":"A thing","responses":{"200":{"description":"the thing"}}}}},
"components":{"responses":{},"headers":{}}}`
	ref, err := newReference([]byte(doc), "/api/public/v1")
	if err != nil {
		t.Fatal(err)
	}
	if len(ref.Paths) != 1 || len(ref.Paths[0].Operations) != 1 {
		t.Fatalf("paths %+v, want one path with one operation", ref.Paths)
	}
	op := ref.Paths[0].Operations[0]
	if op.Method != "GET" || len(op.Parameters) != 1 || op.Parameters[0].Name != "key" || op.Parameters[0].In != "path" || !op.Parameters[0].Required {
		t.Errorf("operation %s with parameters %+v, want GET with the path's key", op.Method, op.Parameters)
	}
}
