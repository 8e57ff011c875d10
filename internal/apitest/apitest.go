// Package apitest holds the API to its OpenAPI document in tests: every
// response a test receives is checked against server/openapi.json, so the
// document cannot drift from what the server sends. It imports testing and
// only tests use it, so it is internal and outside server: the tests of
// server and the end-to-end tests in commands share it, and the binary does
// not link it.
//
// The document is read, checked against the OpenAPI 3.1 schema, and its
// JSON Schema 2020-12 bodies validated by github.com/pb33f/libopenapi and
// github.com/pb33f/libopenapi-validator. Statuses and headers are checked
// here: that library checks only headers marked required, and reads their
// values as JSON (so the strong ETag "abc" would be the string abc).
package apitest

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/config"
	liberrors "github.com/pb33f/libopenapi-validator/errors"
	"github.com/pb33f/libopenapi-validator/helpers"
	"github.com/pb33f/libopenapi-validator/responses"
	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
	"github.com/pb33f/libopenapi/utils"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"ballot/server"
)

// framing are the headers HTTP itself adds or that describe the body's
// bytes; a response may carry them without the document declaring them.
var framing = map[string]bool{
	"Content-Type":      true,
	"Content-Length":    true,
	"Date":              true,
	"Connection":        true,
	"Keep-Alive":        true,
	"Transfer-Encoding": true,
}

// The responses the document describes for requests it has no operation
// for: OpenAPI 3.1 has no place to attach them to, so they are components,
// and the document's description says when each applies.
const (
	notFound         = "NotFound"
	methodNotAllowed = "MethodNotAllowed"
	preflight        = "Preflight"
)

// checker is the parsed document, with every header schema compiled.
type checker struct {
	model   *v3.Document
	options *config.ValidationOptions
	headers map[*v3.Header]*jsonschema.Schema
	errs    []error // what is wrong with the document itself
}

// checking serializes the validator.
var checking sync.Mutex

var load = sync.OnceValue(func() *checker { return newChecker(server.OpenAPIDocument()) })

func newChecker(spec []byte) *checker {
	c := &checker{
		options: config.NewValidationOptions(config.WithFormatAssertions()),
		headers: map[*v3.Header]*jsonschema.Schema{},
	}
	doc, err := libopenapi.NewDocument(spec)
	if err != nil {
		c.errs = append(c.errs, fmt.Errorf("parsing the document: %w", err))
		return c
	}
	if v := doc.GetVersion(); v != "3.1.0" {
		c.errs = append(c.errs, fmt.Errorf("the document is OpenAPI %q, want 3.1.0", v))
	}
	v, errs := validator.NewValidator(doc, config.WithFormatAssertions())
	for _, err := range errs {
		c.errs = append(c.errs, fmt.Errorf("building the validator: %w", err))
	}
	if v != nil {
		if ok, verrs := v.ValidateDocument(); !ok {
			for _, e := range verrs {
				c.errs = append(c.errs, fmt.Errorf("the document is not valid OpenAPI 3.1: %s", describe(e)))
			}
		}
	}
	m, err := doc.BuildV3Model()
	if err != nil {
		c.errs = append(c.errs, fmt.Errorf("building the model: %w", err))
	}
	if m == nil {
		return c
	}
	c.model = &m.Model
	// Compile every header schema now, so a broken one is reported once,
	// as a fault of the document.
	c.eachResponse(func(where string, r *v3.Response) {
		if r.Headers == nil {
			return
		}
		for name, h := range r.Headers.FromOldest() {
			if _, done := c.headers[h]; done {
				continue
			}
			s, err := c.compile(h.Schema)
			if err != nil {
				c.errs = append(c.errs, fmt.Errorf("%s: header %s: %w", where, name, err))
				continue
			}
			c.headers[h] = s
		}
	})
	return c
}

// eachResponse calls f for every response of every operation and of the
// components.
func (c *checker) eachResponse(f func(where string, r *v3.Response)) {
	for path, item := range c.model.Paths.PathItems.FromOldest() {
		for method, op := range item.GetOperations().FromOldest() {
			for code, r := range op.Responses.Codes.FromOldest() {
				f(strings.ToUpper(method)+" "+path+" "+code, r)
			}
		}
	}
	for name, r := range c.model.Components.Responses.FromOldest() {
		f("components.responses."+name, r)
	}
}

func (c *checker) compile(proxy *base.SchemaProxy) (*jsonschema.Schema, error) {
	if proxy == nil || proxy.Schema() == nil {
		return nil, fmt.Errorf("no schema")
	}
	rendered, err := proxy.Schema().RenderInlineWithContext(base.NewInlineRenderContextForValidation())
	if err != nil {
		return nil, err
	}
	js, err := utils.ConvertYAMLtoJSON(rendered)
	if err != nil {
		return nil, err
	}
	return helpers.NewCompiledSchema("header", js, c.options)
}

// DocumentErrors returns what is wrong with the embedded OpenAPI document:
// it does not parse, is not OpenAPI 3.1.0, does not validate against the
// OpenAPI 3.1 schema, or has a header schema that does not compile.
func DocumentErrors() []error { return load().errs }

// Check validates one response to req against the OpenAPI document: its
// status must be documented for the path and method, every header the
// response declares must be present when required and match its schema, no
// other header may appear but HTTP's own (Content-Type, Content-Length,
// Date, Connection…), and the body must match the schema of its media type
// (after gunzipping, when Content-Encoding says gzip). A request the
// document has no operation for must have been answered as its components
// say: OPTIONS on a path of the document with the Preflight response, an
// unknown path (whatever its method) with NotFound,
// another method with MethodNotAllowed. The body of an answer to HEAD is
// not read: a real server sends none, whatever a recorder kept.
func Check(t testing.TB, req *http.Request, status int, header http.Header, body []byte) {
	t.Helper()
	c := load()
	if len(c.errs) > 0 {
		t.Fatalf("apitest: the OpenAPI document is broken: %v", c.errs)
	}
	// The validator renders shared schemas as it works, which is not safe
	// for concurrent use, and the tests run in parallel.
	checking.Lock()
	problems := c.check(req, status, header, body)
	checking.Unlock()
	for _, problem := range problems {
		t.Errorf("OpenAPI: %s %.200s → %d: %s", req.Method, target(req), status, problem)
	}
}

// target is the request's target as the client wrote it.
func target(req *http.Request) string {
	if req.URL.Opaque != "" {
		return req.URL.Opaque
	}
	return req.URL.RequestURI()
}

// serverPath is the decoded path the server routed on. A request built
// with an opaque URL (to send a path exactly as written) carries it in
// Opaque, as "//host/path". A path with an encoded slash is returned as it
// was sent: the server does not take "%2F" for a separator, so it names no
// path of the document.
func serverPath(req *http.Request) string {
	if req.URL.Opaque == "" {
		if strings.Contains(strings.ToLower(req.URL.RawPath), "%2f") {
			return req.URL.RawPath
		}
		return req.URL.Path
	}
	raw := req.URL.Opaque
	if rest, ok := strings.CutPrefix(raw, "//"); ok {
		raw = "/"
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			raw = rest[i:]
		}
	}
	u, err := url.ParseRequestURI(raw)
	if err != nil || strings.Contains(strings.ToLower(u.RawPath), "%2f") {
		return raw
	}
	return u.Path
}

func (c *checker) check(req *http.Request, status int, header http.Header, body []byte) []string {
	if c.model == nil {
		return []string{"the document has no model"}
	}
	code, want, problem := c.response(req, status)
	if problem != "" {
		return []string{problem}
	}
	problems := c.checkHeaders(code, want, header)
	if req.Method == http.MethodHead {
		return problems
	}
	if header.Get("Content-Encoding") == "gzip" && len(body) > 0 {
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err == nil {
			body, err = io.ReadAll(zr)
		}
		if err != nil {
			return append(problems, "Content-Encoding is gzip, but the body is not gzip: "+err.Error())
		}
	}
	if want.Content == nil || want.Content.Len() == 0 {
		if len(body) > 0 {
			problems = append(problems, fmt.Sprintf("%s has no body in the document, but %d bytes came: %.100q", code, len(body), body))
		}
		return problems
	}
	return append(problems, c.checkBody(req, status, header, body, code, want)...)
}

// response finds the document's response for a request's answer: the
// operation's response for the status, or, where the document has no such
// operation, the shared response (404, 405 or the preflight's 204) that the
// status must then be. It returns where in the document the response is
// written (for messages), or one problem.
func (c *checker) response(req *http.Request, status int) (code string, want *v3.Response, problem string) {
	path, item := c.pathItem(serverPath(req))
	var op *v3.Operation
	if item != nil && req.Method == strings.ToUpper(req.Method) { // methods are case-sensitive
		op = item.GetOperations().GetOrZero(strings.ToLower(req.Method))
	}
	if op != nil {
		code = strconv.Itoa(status)
		want = op.Responses.Codes.GetOrZero(code)
		if want == nil {
			return "", nil, fmt.Sprintf("status %d is not documented for %s %s (documented: %s)",
				status, req.Method, path, strings.Join(slices.Collect(op.Responses.Codes.KeysFromOldest()), ", "))
		}
		return req.Method + " " + path + " " + code, want, ""
	}
	name, wantStatus := notFound, http.StatusNotFound
	switch {
	case req.Method == http.MethodOptions && item != nil:
		name, wantStatus = preflight, http.StatusNoContent
	case item != nil, req.Method == http.MethodConnect:
		name, wantStatus = methodNotAllowed, http.StatusMethodNotAllowed
	}
	if status != wantStatus {
		return "", nil, fmt.Sprintf("the document has no operation %s %s, so the answer must be its %s response, %d",
			req.Method, path, name, wantStatus)
	}
	code = "components.responses." + name
	want = c.model.Components.Responses.GetOrZero(name)
	if want == nil {
		return "", nil, "the document has no " + code
	}
	return code, want, ""
}

// checkBody holds a body to the schema of its media type, by the library.
func (c *checker) checkBody(req *http.Request, status int, header http.Header, body []byte, code string, want *v3.Response) []string {
	mediaType, _, _ := strings.Cut(header.Get("Content-Type"), ";")
	mt := want.Content.GetOrZero(strings.ToLower(strings.TrimSpace(mediaType)))
	if mt == nil || mt.Schema == nil {
		return []string{fmt.Sprintf("Content-Type %q is not documented for %s (documented: %s)",
			header.Get("Content-Type"), code, strings.Join(slices.Collect(want.Content.KeysFromOldest()), ", "))}
	}
	_, verrs := responses.ValidateResponseSchema(&responses.ValidateResponseSchemaInput{
		Request: req,
		Response: &http.Response{
			StatusCode:    status,
			Header:        header,
			Body:          io.NopCloser(bytes.NewReader(body)),
			ContentLength: int64(len(body)),
			Request:       req,
		},
		Schema:  mt.Schema.Schema(),
		Version: 3.1,
		Options: []config.Option{config.WithExistingOpts(c.options)},
	})
	var problems []string
	for _, e := range verrs {
		problems = append(problems, code+": body: "+describe(e))
	}
	return problems
}

// pathItem finds the document's path item for a request's path: the one
// named so, or else the one whose template the path fills, a parameter
// ("{slug_or_id}") standing for one whole segment that is not empty and
// holds no encoded slash. It returns the document's name of the path, or
// the path itself when no item matches.
func (c *checker) pathItem(path string) (string, *v3.PathItem) {
	if item := c.model.Paths.PathItems.GetOrZero(path); item != nil {
		return path, item
	}
	segments := strings.Split(path, "/")
	for template, item := range c.model.Paths.PathItems.FromOldest() {
		want := strings.Split(template, "/")
		if !strings.Contains(template, "{") || len(want) != len(segments) {
			continue
		}
		match := true
		for i, w := range want {
			if strings.HasPrefix(w, "{") && strings.HasSuffix(w, "}") {
				match = match && segments[i] != "" && !strings.Contains(strings.ToLower(segments[i]), "%2f")
			} else {
				match = match && w == segments[i]
			}
		}
		if match {
			return template, item
		}
	}
	return path, nil
}

// checkHeaders checks the headers against the response's declarations.
func (c *checker) checkHeaders(code string, want *v3.Response, header http.Header) []string {
	var problems []string
	declared := map[string]*v3.Header{}
	if want.Headers != nil {
		for name, h := range want.Headers.FromOldest() {
			declared[http.CanonicalHeaderKey(name)] = h
		}
	}
	for _, name := range slices.Sorted(maps.Keys(declared)) {
		h := declared[name]
		values, present := header[name]
		if !present {
			if h.Required {
				problems = append(problems, fmt.Sprintf("header %s is required by %s, and is missing", name, code))
			}
			continue
		}
		for _, v := range values {
			if err := validateHeader(c.headers[h], h, v); err != nil {
				problems = append(problems, fmt.Sprintf("header %s: %q does not match %s: %v", name, v, code, err))
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(header)) {
		canonical := http.CanonicalHeaderKey(name)
		if declared[canonical] == nil && !framing[canonical] {
			problems = append(problems, fmt.Sprintf("header %s (%q) is not declared for %s: declare it in server/openapi.json", name, header.Get(name), code))
		}
	}
	return problems
}

// validateHeader validates one header value: as an integer when the schema
// says integer, as the string it is otherwise.
func validateHeader(schema *jsonschema.Schema, h *v3.Header, value string) error {
	if schema == nil {
		return fmt.Errorf("the header's schema did not compile")
	}
	var v any = value
	if s := h.Schema.Schema(); s != nil && slices.Contains(s.Type, "integer") {
		if value == "" || strings.Trim(value, "0123456789") != "" {
			return fmt.Errorf("not an integer in decimal digits")
		}
		v = json.Number(value)
	}
	return schema.Validate(v)
}

// describe flattens a validation error into one line.
func describe(e *liberrors.ValidationError) string {
	var b strings.Builder
	b.WriteString(e.Message)
	if e.Reason != "" {
		b.WriteString(": " + e.Reason)
	}
	for _, f := range e.SchemaValidationErrors {
		fmt.Fprintf(&b, "; at %s: %s", cmp.Or(f.FieldPath, strings.Join(f.InstancePath, "/")), f.Reason)
	}
	return b.String()
}
