package commands_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"ballot/internal/testprograms"
)

func TestAccessLogKeepsTheLastLinesOnSIGTERM(t *testing.T) {
	testprograms.EndToEnd(t, "sends SIGTERM to the binary")
	// The access log is buffered; SIGTERM right after the last answer
	// must still bring out every line, before "ballot: stopped".
	p := startServer(t)
	hc := prodHTTP(t)
	const n = 50
	for i := range n {
		r := prodDo(t, hc, http.MethodGet, p.url(fmt.Sprintf("%s/parties?n=%d", e2eBase, i)), nil)
		if r.status != http.StatusOK {
			t.Fatalf("request %d: status %d", i, r.status)
		}
	}
	p.stop(t)
	log := p.stderr.String()
	for i := range n {
		line := fmt.Sprintf(`uri="%s/parties?n=%d" status=200 `, e2eBase, i)
		if strings.Count(log, line) != 1 {
			t.Errorf("the access-log line of request %d (%s) appears %d times, want once", i, line, strings.Count(log, line))
		}
	}
	last := strings.LastIndex(log, fmt.Sprintf(`uri="%s/parties?n=%d"`, e2eBase, n-1))
	if stopped := strings.LastIndex(log, "ballot: stopped"); stopped < last {
		t.Errorf(`"ballot: stopped" at %d, before the last access-log line at %d`, stopped, last)
	}
}
