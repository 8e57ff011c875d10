package answers_test

import (
	"sync"

	"ballot/answers"
	"ballot/dataset"
)

// prepared holds each dataset's answers, prepared once for every test.
var prepared sync.Map

// of is the answer of res, a result of ds.
func of(ds *dataset.Dataset, res dataset.Result) answers.Result {
	a, ok := prepared.Load(ds)
	if !ok {
		a, _ = prepared.LoadOrStore(ds, answers.Prepare(ds))
	}
	return a.(*answers.Answers).Of(res)
}
