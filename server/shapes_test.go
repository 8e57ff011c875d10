package server_test

import (
	"net/http"
	"strings"
	"testing"

	"ballot/internal/datasettest"
	"ballot/server"
)

// TestPagesOfOtherShapes: the pages of an election of 8 districts whose
// districts list no localities say so, each district's with its note, and
// offer no locality search; its forms offer its 8 districts.
func TestPagesOfOtherShapes(t *testing.T) {
	s, _ := serverOf(datasettest.ShapeDataset(t, datasettest.Eight), server.Options{Pages: true, RateLimit: 1000})
	const none = "The data of this election lists no locality of its districts, so no locality can be looked up."
	for _, tt := range []pageCase{
		{"a district without localities, with its note", "/districts/2", 200, "district-without-localities.html", []string{
			"<h1>District 2</h1>", "<p>The data lists no locality of district 2.</p>",
			`<p class="note">No locality list is given for the districts of this election</p>`,
			`<caption id="sheet-caption">District 2: quota 2,759</caption>`}, []string{"<table>\n<caption>The 0 localities"}},
		{"a district without localities or a note", "/districts/3", 200, "", []string{
			"<p>The data lists no locality of district 3.</p>"}, []string{`<p class="note">No locality`}},
		{"in Maltese", "/mt/districts/2", 200, "", []string{
			"<p>Id-data ma telenka l-ebda lokalità tad-distrett 2.</p>",
			`<p class="note" lang="en">No locality list is given for the districts of this election</p>`}, nil},
		{"the districts", "/districts", 200, "", []string{
			`<p class="note">` + none + `</p>`, "<p>The data lists no locality of district 8.</p>", `id="district-8"`},
			[]string{`<form class="filters" action="/districts"`, `id="district-9"`}},
		{"the districts in Maltese", "/mt/districts", 200, "", []string{
			`<p class="note">Id-data ta&#39; din l-elezzjoni ma telenka l-ebda lokalità tad-distretti tagħha, għalhekk ma tista&#39; tfittex l-ebda lokalità.</p>`}, nil},
		{"a locality looked up", "/districts?locality=Valletta", 400, "", []string{`<p class="note">` + none + `</p>`},
			[]string{`<form class="filters" action="/districts"`}},
		{"the home page", "/", 200, "", []string{"<p>" + none + "</p>", `<strong>8</strong> districts`},
			[]string{`<input id="locality-name"`}},
		{"the candidates' form", "/candidates?district=8", 200, "", []string{`<option value="8" selected>District 8</option>`},
			[]string{`<option value="9"`}},
	} {
		t.Run(tt.name, func(t *testing.T) { checkPage(t, s, tt, "eight-") })
	}
}

// TestAPIOfOtherShapes: the API of elections of 8, 10 and 2 districts
// takes their own district numbers, refuses the others with the election's
// range, and echoes a district filter in meta.
func TestAPIOfOtherShapes(t *testing.T) {
	tests := []struct {
		shape, target string
		status        int
		body          string // the body, or a part of it for a 200
	}{
		{datasettest.Eight, "/api/public/v1/candidates?district=9", 400,
			`{"type":"about:blank","title":"Bad Request","status":400,"detail":"district must be a district number from 1 to 8 or a district UUID","invalid_params":[{"name":"district","reason":"must be a district number from 1 to 8 or a district UUID"}]}`},
		{datasettest.Eight, "/api/public/v1/candidates?stood_in=9", 400,
			`{"type":"about:blank","title":"Bad Request","status":400,"detail":"stood_in must be a district number from 1 to 8 or a district UUID","invalid_params":[{"name":"stood_in","reason":"must be a district number from 1 to 8 or a district UUID"}]}`},
		{datasettest.Eight, "/api/public/v1/results?district=9", 400,
			`{"type":"about:blank","title":"Bad Request","status":400,"detail":"district must be a district number from 1 to 8 or a district UUID","invalid_params":[{"name":"district","reason":"must be a district number from 1 to 8 or a district UUID"}]}`},
		{datasettest.Eight, "/api/public/v1/districts/9", 404,
			`{"type":"about:blank","title":"Not Found","status":404,"detail":"no district has the number or id \"9\"; districts are numbered 1 to 8"}`},
		{datasettest.Eight, "/api/public/v1/districts?locality=Valletta", 400,
			`{"type":"about:blank","title":"Bad Request","status":400,"detail":"locality names no locality: the districts of this dataset list none","invalid_params":[{"name":"locality","reason":"names no locality: the districts of this dataset list none"}]}`},
		{datasettest.Eight, "/api/public/v1/districts/2", 200,
			`"localities":[],"source_url":null,"seats":4,"note":"No locality list is given for the districts of this election"}]`},
		{datasettest.Eight, "/api/public/v1/candidates?district=8", 200, `"filters":{"district":{"number":8,"id":"`},
		{datasettest.Ten, "/api/public/v1/candidates?stood_in=10&elected=true", 200, `"count":5,"total":5`},
		{datasettest.Ten, "/api/public/v1/districts/1", 200, `"seats":6,"note":null}]`},
		{datasettest.Ten, "/api/public/v1/results/10", 200, `"district_number":10,"status":"final","seats":5,`},
		{datasettest.Ten, "/api/public/v1/candidates?district=11", 400,
			`{"type":"about:blank","title":"Bad Request","status":400,"detail":"district must be a district number from 1 to 10 or a district UUID","invalid_params":[{"name":"district","reason":"must be a district number from 1 to 10 or a district UUID"}]}`},
		{datasettest.Two, "/api/public/v1/districts?locality=nadur", 200, `"count":1,"total":1`},
		{datasettest.Two, "/api/public/v1/results/3", 404,
			`{"type":"about:blank","title":"Not Found","status":404,"detail":"no count sheet has the district number or id \"3\"; districts are numbered 1 to 2"}`},
	}
	servers := map[string]*server.Server{}
	for _, tt := range tests {
		t.Run(tt.shape+" "+tt.target, func(t *testing.T) {
			s := servers[tt.shape]
			if s == nil {
				s, _ = serverOf(datasettest.ShapeDataset(t, tt.shape), server.Options{RateLimit: 1000})
				servers[tt.shape] = s
			}
			rec := do(t, s, request{method: http.MethodGet, target: tt.target})
			body := rec.Body.String()
			if rec.Code != tt.status || tt.status != 200 && body != tt.body+"\n" || tt.status == 200 && !strings.Contains(body, tt.body) {
				t.Errorf("%d %s\nwant %d %s", rec.Code, body, tt.status, tt.body)
			}
		})
	}
}
