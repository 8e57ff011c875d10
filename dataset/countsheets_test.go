package dataset_test

import (
	"testing"
	"testing/fstest"

	"ballot/internal/datasettest"
)

// countSheets is the embedded dataset, with its 2022 count sheets, to
// break.
func countSheets(t testing.TB) fstest.MapFS { return datasettest.Files(t) }
