package pages

import (
	"fmt"
	"html"
	"html/template"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"ballot/dataset"
	"ballot/internal/datasettest"
)

// TestChartLabelsInside: every text of the chart (the totals' and counts'
// labels, the quota's, the elected's names or numbers), as wide and as
// tall as the chart budgets it (textWidth, labelAscent, labelDescent) with
// its white outline, lies inside the chart's viewBox, and no two names
// overlap: on the 13 sheets of 2022 as their pages show them, in both
// languages and both layouts (the desk's names of districts 4, 8 and 10
// ran past the right edge), and on sheets of many elected ending
// together, of very long names and of large totals.
func TestChartLabelsInside(t *testing.T) {
	ds := datasettest.Counts(t, true)
	type drawing struct {
		name string
		svg  string
	}
	var drawings []drawing
	for _, lang := range []*Lang{English, Maltese} {
		s := &Site{ds: ds, lang: lang, api: "/api/public/v1"}
		sheets := ds.Sheets()
		if len(sheets) != 13 {
			t.Fatalf("%d sheets, want 13", len(sheets))
		}
		for i := range sheets {
			v := s.newCountView(&sheets[i])
			for _, svg := range []template.HTML{v.Chart, v.ChartNarrow} {
				drawings = append(drawings, drawing{fmt.Sprintf("district %d in %s", sheets[i].DistrictNumber, lang.Code), string(svg)})
			}
		}
	}
	s := &Site{lang: English}
	for _, tt := range syntheticCharts() {
		for _, l := range []chartLayout{wideChart, narrowChart} {
			drawings = append(drawings, drawing{tt.name, string(s.drawChart(tt.sheet, tt.names, l))})
		}
	}
	for _, d := range drawings {
		w, h, boxes := chartTexts(t, d.svg)
		class := regexp.MustCompile(`class="chart (chart-[a-z]+)"`).FindStringSubmatch(d.svg)[1]
		var names []textBox
		for _, b := range boxes {
			if b.x0 < 0 || b.y0 < 0 || b.x1 > w || b.y1 > h {
				t.Errorf("%s, %s: %q spans %.1f,%.1f to %.1f,%.1f, outside the chart's 0,0 to %.0f,%.0f", d.name, class, b.text, b.x0, b.y0, b.x1, b.y1, w, h)
			}
			if b.name {
				names = append(names, b)
			}
		}
		for i, a := range names {
			for _, b := range names[i+1:] {
				// Their text, not their outlines, which may touch.
				if a.x0+labelHalo < b.x1-labelHalo && b.x0+labelHalo < a.x1-labelHalo && a.y0+labelHalo < b.y1-labelHalo && b.y0+labelHalo < a.y1-labelHalo {
					t.Errorf("%s, %s: the names %q and %q overlap", d.name, class, a.text, b.text)
				}
			}
		}
	}
}

// syntheticChart is a sheet drawn by the tests of the chart, and its rows'
// names.
type syntheticChart struct {
	name  string
	sheet *dataset.CountSheet
	names []string
}

// syntheticCharts are sheets whose charts test the chart's edges: many
// elected ending together at the quota, very long names, names ending at
// the top and at the bottom, large totals.
func syntheticCharts() []syntheticChart {
	// sheet is a sheet of counts counts, whose elected are elected at
	// the last count and end at the quota, but for the totals given.
	sheet := func(elected, counts, quota int, last map[int]int) *dataset.CountSheet {
		sh := &dataset.CountSheet{DistrictNumber: 1, Seats: elected, Quota: quota}
		for k := range counts {
			sh.Counts = append(sh.Counts, dataset.Count{Number: k + 1})
		}
		at := counts
		for j := range elected + 3 {
			row := dataset.Candidacy{CandidateID: "c" + strconv.Itoa(j), Totals: make([]int, counts)}
			for k := range counts {
				row.Totals[k] = quota / 2 * (k + 1) / counts
			}
			if j < elected {
				row.Totals[counts-1] = quota
				if v, ok := last[j]; ok {
					row.Totals[counts-1] = v
				}
				row.ElectedAtCount = &at
				sh.Elected = append(sh.Elected, row.CandidateID)
			}
			sh.Candidacies = append(sh.Candidacies, row)
		}
		return sh
	}
	numbered := func(n int, name string) []string {
		names := make([]string, n+3)
		for j := range names {
			names[j] = fmt.Sprintf("%s %d", name, j+1)
		}
		return names
	}
	long := []string{
		"Maria Concetta Immaculata Spiteri Debono Cardona Gatt",
		"Wolfeschlegelsteinhausenbergerdorffvoralternwarengewissenhaftschaferswessen",
		"Ġużeppi Ħabib Żammit Ċassar Ħili Ġauċi Ħaġar",
		"WWWWWWWWWW MMMMMMMMMM WWWWWWWWWW",
		"N " + strings.Repeat("y", Clipped-2) + "…",
		"Mark Anthony Sammut", "Bea", "Cal",
	}
	return []syntheticChart{
		{"5 elected ending together", sheet(5, 20, 3800, nil), numbered(5, "Christopher Anthony Agius")},
		{"20 elected ending together", sheet(20, 20, 3800, nil), numbered(20, "Mark Anthony Sammut")},
		{"30 elected ending together", sheet(30, 2, 3800, nil), numbered(30, "Edward Zammit Lewis")},
		{"60 elected ending together", sheet(60, 30, 3800, nil), numbered(60, "Beppe Fenech Adami")},
		{"one count", sheet(12, 1, 3800, nil), numbered(12, "Alison Zerafa Civelli")},
		{"very long names", sheet(5, 27, 3800, nil), long},
		{"names at the top and the bottom", sheet(5, 10, 3800, map[int]int{0: 11999, 1: 11999, 2: 0, 3: 0, 4: 1}), long},
		{"large totals", sheet(5, 10, 1_234_567, map[int]int{0: 9_999_999}), numbered(5, "Ġorġ Ħabib")},
	}
}

// textBox is a text of a chart and its box as the chart budgets it.
type textBox struct {
	text           string
	x0, y0, x1, y1 float64
	name           bool // an elected's name or number
}

var (
	svgTag   = regexp.MustCompile(`^<svg class="chart [a-z-]+" viewBox="0 0 ([0-9]+) ([0-9]+)" [^>]* font-size="([0-9]+)">`)
	textTag  = regexp.MustCompile(`<text ([^>]*)>([^<]*)</text>`)
	textAttr = regexp.MustCompile(`([a-z-]+)="([^"]*)"`)
)

// chartTexts reads a chart's viewBox and its texts' boxes.
func chartTexts(t *testing.T, svg string) (w, h float64, boxes []textBox) {
	t.Helper()
	m := svgTag.FindStringSubmatch(svg)
	if m == nil {
		t.Fatalf("not a chart: %.200s", svg)
	}
	w, _ = strconv.ParseFloat(m[1], 64)
	h, _ = strconv.ParseFloat(m[2], 64)
	font, _ := strconv.ParseFloat(m[3], 64)
	for _, tm := range textTag.FindAllStringSubmatch(svg, -1) {
		attrs := map[string]string{"font-size": m[3]}
		for _, a := range textAttr.FindAllStringSubmatch(tm[1], -1) {
			attrs[a[1]] = a[2]
		}
		num := func(name string) float64 {
			v, err := strconv.ParseFloat(attrs[name], 64)
			if err != nil && attrs[name] != "" {
				t.Fatalf("%s=%q in %s", name, attrs[name], tm[0])
			}
			return v
		}
		text := html.UnescapeString(tm[2])
		size := num("font-size")
		width := textWidth(text, size)
		if attrs["font-weight"] == "600" {
			width *= 1.15 // a bold face is wider
		}
		b := textBox{text: text, y0: num("y") - labelAscent*size, y1: num("y") + labelDescent*size}
		switch attrs["text-anchor"] {
		case "end":
			b.x0 = num("x") - width
		case "middle":
			b.x0 = num("x") - width/2
		default:
			b.x0 = num("x")
		}
		b.x1 = b.x0 + width
		halo := num("stroke-width") / 2
		b.x0, b.y0, b.x1, b.y1 = b.x0-halo, b.y0-halo, b.x1+halo, b.y1+halo
		b.name = size == font && attrs["font-weight"] == ""
		boxes = append(boxes, b)
	}
	return w, h, boxes
}

// TestShortName: a name too long for the chart's room is shortened at a
// word, its first names to initials, then its last words to "…"; a word
// is cut within only when it alone is too long, and "…" marks the cut.
func TestShortName(t *testing.T) {
	const size = 14
	room := func(s string) float64 { return textWidth(s, size) }
	long := "Wolfeschlegelsteinhausenbergerdorffvoralternwaren"
	tests := []struct {
		name string
		room float64
		want string
	}{
		{"Mark Anthony Sammut", room("Mark Anthony Sammut"), "Mark Anthony Sammut"},
		{"Josianne Cardona Gatt", room("Josianne Cardona Gatt") - 1, "J. Cardona Gatt"},
		{"Josianne Cardona Gatt", room("J. Cardona Gatt"), "J. Cardona Gatt"},
		{"Josianne Cardona Gatt", room("J. Cardona Gatt") - 1, "J. C. Gatt"},
		{"Ġużeppi Ħabib Żammit", room("Ġ. Ħabib Żammit"), "Ġ. Ħabib Żammit"},
		{"Ġużeppi Ħabib Żammit", room("Ġ. Ħ. Żammit"), "Ġ. Ħ. Żammit"},
		{"Maria Concetta " + long, 194, "Maria Concetta …"},
		{"Maria Concetta " + long, room("Maria …"), "Maria …"},
		{long + " Gatt", 194, "W. Gatt"},
		{long, 194, long[:21] + "…"},
		{"Bea", 1, "…"},
	}
	for _, tt := range tests {
		got := shortName(tt.name, tt.room, size)
		if got != tt.want {
			t.Errorf("shortName(%q, %.1f) = %q, want %q", tt.name, tt.room, got, tt.want)
		}
		if got != "…" && textWidth(got, size) > tt.room {
			t.Errorf("shortName(%q, %.1f) = %q, %.1f wide", tt.name, tt.room, got, textWidth(got, size))
		}
	}
}
