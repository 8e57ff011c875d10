package dataset_test

import (
	"sync"

	"ballot/answers"
	"ballot/dataset"
)

// prepared holds each dataset's answers, prepared once for every test.
var prepared sync.Map

// answerOf is res, a result of ds, as the API writes it (package answers):
// the tests that check a query's records by their bytes read them there.
func answerOf(ds *dataset.Dataset, res dataset.Result) answers.Result {
	a, ok := prepared.Load(ds)
	if !ok {
		a, _ = prepared.LoadOrStore(ds, answers.Prepare(ds))
	}
	return a.(*answers.Answers).Of(res)
}
