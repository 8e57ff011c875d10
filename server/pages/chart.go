package pages

import (
	"cmp"
	"html/template"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"ballot/dataset"
)

// The chart of a count: each candidate's total across the counts, drawn
// on the server as inline SVG (no script; colours as SVG attributes, which
// the pages' Content-Security-Policy allows, as the party swatches are).
// The sheet's table below it is its text alternative, so the chart is one
// image to assistive technology (role="img", a label pointing to the
// table).
//
// A district has up to 30 candidates: the elected are drawn thick, each
// in a colour of their own, marked where they were elected and named at
// their lines' ends; the chartOthers highest of the others in grey,
// dashed; the rest thin and light, as the field they rose from.
//
// It is drawn twice, for a desk and for a phone (the stylesheet shows
// one): each scales to its container's width (width 100%), and the
// phone's, narrower, keeps its text near the page's size. The phone's
// names its elected by the order of their election, which the legend
// beside it spells out.

// chartLayout is one drawing of the chart, in its viewBox's units.
type chartLayout struct {
	class         string // chart-wide or chart-narrow
	width, height int
	font          int  // the elected's names and the quota's label
	numbered      bool // the elected named by their order, not their names
}

var (
	wideChart   = chartLayout{"chart-wide", 640, 400, 14, false}
	narrowChart = chartLayout{"chart-narrow", 340, 380, 13, true}
)

// The chart's margins: the totals' labels at the left (wider where a
// label needs it), the counts' numbers and their title below.
const (
	chartLeft   = 48
	chartTop    = 18
	chartBottom = 44
	chartTick   = 12 // the axes' labels
	chartOthers = 3  // the others drawn in grey
	chartLines  = 60 // the most lines drawn: more would be a grey mass
)

// chartColours are the elected's colours, in the order they were
// elected: one each, so that lines of one party are told apart too, and
// each dark enough to read against white.
var chartColours = []string{"#0b5cad", "#b3261e", "#1e7b3a", "#7b3fa0", "#b85c00", "#0f7285", "#6b5d00", "#a0306f"}

// chartColour is the colour of the i-th elected (from 0).
func chartColour(i int) string { return chartColours[i%len(chartColours)] }

// chart is one drawing of a sheet's chart.
type chart struct {
	chartLayout
	b            strings.Builder
	sh           *dataset.CountSheet
	labels       []string // the elected's, as the chart names them
	left         float64  // the plot's left edge
	plotW, plotH float64
	yMax, step   int
}

func (c *chart) x(k int) float64 {
	if n := len(c.sh.Counts); n > 1 {
		return c.left + c.plotW*float64(k)/float64(n-1)
	}
	return c.left + c.plotW/2
}

func (c *chart) y(v int) float64 {
	return chartTop + c.plotH*(1-float64(v)/float64(c.yMax))
}

// drawChart draws the count of sh in layout l; names are its rows' names.
func (s *Site) drawChart(sh *dataset.CountSheet, names []string, l chartLayout) template.HTML {
	c := &chart{chartLayout: l, sh: sh}
	top := sh.Quota
	for _, row := range sh.Candidacies {
		top = max(top, slices.Max(row.Totals))
	}
	c.step = tickStep(top)
	c.yMax = (top/c.step + 1) * c.step
	// The totals' labels end 6 units left of the plot, and start inside
	// the chart.
	c.left = chartLeft
	for v := 0; v <= c.yMax; v += c.step {
		c.left = max(c.left, math.Ceil(textWidth(s.lang.Num(v), chartTick))+6)
	}
	// The right margin holds the elected's names or numbers after their
	// leaders: as wide as the widest needs, up to a third of the chart,
	// within which a longer name is shortened.
	room := float64(l.width/3) - labelX - labelHalo
	c.labels = make([]string, c.shownElected())
	widest := 0.0
	for j := range c.labels {
		c.labels[j] = strconv.Itoa(j + 1)
		if !l.numbered {
			c.labels[j] = shortName(names[j], room, float64(l.font))
		}
		widest = max(widest, textWidth(c.labels[j], float64(l.font)))
	}
	right := math.Ceil(labelX + widest + labelHalo)
	// A chart whose names cannot all stand one under another, each at
	// least a line apart, in its height is drawn taller.
	first, last := c.labelBounds()
	if over := first + float64(max(0, len(c.labels)-1))*c.labelGap() - last; over > 0 {
		c.height += int(math.Ceil(over))
	}
	c.plotW, c.plotH = float64(l.width)-c.left-right, float64(c.height-chartTop-chartBottom)

	c.b.WriteString(`<svg class="chart ` + l.class + `" viewBox="0 0 ` + strconv.Itoa(l.width) + " " + strconv.Itoa(c.height) +
		`" width="100%" role="img" aria-label="` + template.HTMLEscapeString(s.lang.T("chart_label", sh.DistrictNumber)) +
		`" font-size="` + strconv.Itoa(l.font) + `">`)
	c.axes(s.lang)
	c.lines()
	c.b.WriteString(`<text x="` + f(c.left+6) + `" y="` + f(c.y(sh.Quota)+float64(l.font)+3) + `"` + halo + ` font-weight="600">` +
		template.HTMLEscapeString(s.lang.T("chart_quota", s.lang.Num(sh.Quota))) + `</text>`)
	c.names()
	c.b.WriteString(`</svg>`)
	return template.HTML(c.b.String()) // every name and word in it is escaped
}

// axes draws the totals' grid and labels, the counts' numbers, and their
// title.
func (c *chart) axes(lang *Lang) {
	tick := `" fill="#5b6570" font-size="` + strconv.Itoa(chartTick) + `">`
	for v := 0; v <= c.yMax; v += c.step {
		c.b.WriteString(`<line x1="` + f(c.left) + `" x2="` + f(c.left+c.plotW) + `" y1="` + f(c.y(v)) + `" y2="` + f(c.y(v)) + `" stroke="#e3e7eb"/>`)
		c.b.WriteString(`<text x="` + f(c.left-6) + `" y="` + f(c.y(v)+4) + `" text-anchor="end` + tick + lang.Num(v) + `</text>`)
	}
	n := len(c.sh.Counts)
	every := 1
	for c.plotW/float64(max(1, n-1))*float64(every) < 20 {
		every++
	}
	// Every every-th count is numbered, and the last: a number less than
	// every counts before the last gives way to it, so that the two never
	// run into each other ("1718").
	for k := range n {
		if k == n-1 || k%every == 0 && n-1-k >= every {
			c.b.WriteString(`<text x="` + f(c.x(k)) + `" y="` + f(chartTop+c.plotH+18) + `" text-anchor="middle` + tick + strconv.Itoa(k+1) + `</text>`)
		}
	}
	c.b.WriteString(`<text x="` + f(c.left+c.plotW/2) + `" y="` + f(float64(c.height-6)) + `" text-anchor="middle` + tick +
		template.HTMLEscapeString(lang.T("chart_counts")) + `</text>`)
	// The quota's line; its label, under it at the left, is drawn with
	// the names, over the lines.
	c.b.WriteString(`<line x1="` + f(c.left) + `" x2="` + f(c.left+c.plotW) + `" y1="` + f(c.y(c.sh.Quota)) + `" y2="` + f(c.y(c.sh.Quota)) +
		`" stroke="#1d232a" stroke-width="1.5" stroke-dasharray="8 4"/>`)
}

// halo is the attributes of a label drawn over lines: a white outline
// keeps it legible where it crosses one.
const halo = ` fill="#1d232a" stroke="#fff" stroke-width="4" stroke-linejoin="round" paint-order="stroke"`

// line draws a candidacy's totals until its exclusion.
func (c *chart) line(row *dataset.Candidacy, attrs string) {
	var pts []string
	for k, v := range row.Totals {
		if row.ExcludedAtCount != nil && k+1 >= *row.ExcludedAtCount {
			break
		}
		pts = append(pts, f(c.x(k))+","+f(c.y(v)))
	}
	if len(pts) == 1 { // gone at count 2: a dot
		pts = append(pts, pts[0])
	}
	if len(pts) > 0 {
		c.b.WriteString(`<polyline points="` + strings.Join(pts, " ") + `" fill="none" stroke-linejoin="round" stroke-linecap="round" ` + attrs + `/>`)
	}
}

// lines draws the others, the lowest first, then the elected on top,
// each with a dot at the count that elected them.
func (c *chart) lines() {
	others := make([]int, 0, len(c.sh.Candidacies))
	for j, row := range c.sh.Candidacies {
		if row.ElectedAtCount == nil {
			others = append(others, j)
		}
	}
	slices.SortStableFunc(others, func(a, b int) int {
		return cmp.Compare(slices.Max(c.sh.Candidacies[b].Totals), slices.Max(c.sh.Candidacies[a].Totals))
	})
	elected := c.shownElected()
	others = others[:min(len(others), max(0, chartLines-elected))]
	for i := len(others) - 1; i >= 0; i-- {
		if i < chartOthers {
			c.line(&c.sh.Candidacies[others[i]], `stroke="#6b7580" stroke-width="1.75" stroke-dasharray="5 3"`)
		} else {
			c.line(&c.sh.Candidacies[others[i]], `stroke="#c3cad1" stroke-width="1"`)
		}
	}
	for j := range elected {
		row := &c.sh.Candidacies[j]
		colour := chartColour(j)
		c.line(row, `stroke="`+colour+`" stroke-width="3"`)
		k := *row.ElectedAtCount - 1
		if k >= len(row.Totals) { // elected after the counts drawn
			continue
		}
		c.b.WriteString(`<circle cx="` + f(c.x(k)) + `" cy="` + f(c.y(row.Totals[k])) + `" r="5" fill="` + colour + `" stroke="#fff" stroke-width="1.5"/>`)
	}
}

// shownElected is how many of the elected the chart draws in colour, the
// first chartLines: the sheet's first rows, which list the elected in
// the order they were elected.
func (c *chart) shownElected() int {
	return min(len(c.sh.Elected), chartLines)
}

// labelBounds are the highest and the lowest a name's baseline may be,
// its text and outline inside the box (the baseline written to a tenth:
// a twentieth inside).
func (c *chart) labelBounds() (top, bottom float64) {
	return labelAscent*float64(c.font) + labelHalo + 0.05, float64(c.height) - labelDescent*float64(c.font) - labelHalo - 0.05
}

// labelGap is the least distance between two names' baselines: a line
// of text, so that no two names touch.
func (c *chart) labelGap() float64 { return float64(c.font) + 3 }

// names names the elected at their lines' ends, moved apart where lines
// end together (every elected line ends at the quota once their surplus
// has gone), and kept inside the chart's box, with a leader from each
// line's end to its name.
func (c *chart) names() {
	type label struct {
		text   string
		y, end float64
		colour string
	}
	var labels []label
	last := len(c.sh.Counts) - 1
	for j, text := range c.labels {
		end := c.y(c.sh.Candidacies[j].Totals[last])
		labels = append(labels, label{text, end, end, chartColour(j)})
	}
	slices.SortStableFunc(labels, func(a, b label) int { return cmp.Compare(a.y, b.y) })
	// Each name's baseline at its line's end, or a line below the name
	// above it, inside the box (spreadLabels).
	top, bottom := c.labelBounds()
	ys := make([]float64, len(labels))
	for i := range labels {
		ys[i] = labels[i].y
	}
	spreadLabels(ys, c.labelGap(), top, bottom)
	for i := range labels {
		labels[i].y = ys[i]
	}
	// A leader is thin and starts a little after its line's end: drawn
	// as thick as the line and from its end, a name moved far from its
	// line read as the line's last count falling to it.
	lx := c.left + c.plotW
	for _, l := range labels {
		c.b.WriteString(`<polyline points="` + f(lx+4) + "," + f(l.end) + " " + f(lx+10) + "," + f(l.y-4) + " " + f(lx+14) + "," + f(l.y-4) +
			`" fill="none" stroke="` + l.colour + `" stroke-width="1.25"/>`)
		c.b.WriteString(`<text x="` + f(lx+labelX) + `" y="` + f(l.y) + `"` + halo + `>` + template.HTMLEscapeString(l.text) + `</text>`)
	}
}

// spreadLabels moves the baselines ys, sorted from the top down, apart:
// each at its place, or gap below the one above it, and no higher than
// top; then, from the bottom up, none lower than bottom, or less than gap
// above the one below it. A chart tall enough for all (drawChart makes
// it so) keeps the first pass's bound at the top.
func spreadLabels(ys []float64, gap, top, bottom float64) {
	for i := range ys {
		ys[i] = max(ys[i], top)
		if i > 0 {
			ys[i] = max(ys[i], ys[i-1]+gap)
		}
	}
	for i := len(ys) - 1; i >= 0; i-- {
		ys[i] = min(ys[i], bottom)
		if i < len(ys)-1 {
			ys[i] = min(ys[i], ys[i+1]-gap)
		}
	}
}

// What the chart assumes of its text, which the browser lays out in the
// page's font (system-ui): a label's width is known only there, so the
// chart budgets it from the advance widths of DejaVu Sans (advances),
// Linux's usual system-ui and the widest of the faces system-ui names on
// the common systems (San Francisco, Segoe UI, Roboto and Noto Sans set
// Latin text narrower). Measured in Chromium at 1280 and 375 pixels, the
// texts of the 2022 charts are as wide as the table makes them to within
// 2% (kerning and hinting), their boxes 0.94 em above the baseline and
// 0.25 below at most; the 10% margin is for those and a face wider than
// the table's, and the box's heights are rounded up.
const (
	textMargin   = 1.1
	labelAscent  = 0.95 // of the text's box above the baseline, in em (DejaVu Sans: 0.93)
	labelDescent = 0.26 // below it (DejaVu Sans: 0.24)
	labelHalo    = 2    // the white outline beyond the text: half halo's stroke-width
	labelX       = 17   // a name's start, after its leader, from the plot's right edge
)

// advances are the advance widths of DejaVu Sans's printable ASCII
// characters, from the space to the tilde, in thousandths of an em,
// rounded up.
var advances = [95]uint16{
	318, 401, 460, 838, 636, 950, 780, 275, 390, 390, 500, 838, 318, 361, 318, 337,
	636, 636, 636, 636, 636, 636, 636, 636, 636, 636, 337, 337, 838, 838, 838, 531,
	1000, 684, 686, 698, 770, 632, 575, 775, 752, 295, 295, 656, 557, 863, 748, 787,
	603, 787, 695, 635, 611, 732, 684, 989, 685, 611, 685, 390, 337, 390, 838, 500,
	500, 613, 635, 550, 635, 615, 352, 635, 634, 278, 278, 579, 278, 974, 634, 612,
	635, 635, 411, 521, 392, 634, 592, 818, 592, 592, 525, 636, 337, 636, 838,
}

// advance is the width of r in em: an accented letter's is its base
// letter's (ż's is z's); any other character's, a whole em, as wide as
// the widest letters.
func advance(r rune) float64 {
	if r < ' ' || r > '~' {
		base, _ := utf8.DecodeRuneInString(norm.NFD.String(string(r)))
		if base == r || base < ' ' || base > '~' {
			return 1
		}
		r = base
	}
	return float64(advances[r-' ']) / 1000
}

// textWidth is the width the chart budgets for text at font size size,
// in the viewBox's units, its margin included.
func textWidth(text string, size float64) float64 {
	w := 0.0
	for _, r := range text {
		w += advance(r)
	}
	return w * size * textMargin
}

// shortName is name as a label at most room wide at font size size:
// whole when it fits; else with its first names cut to their initials,
// from the first on ("Josianne Cardona Gatt", "J. Cardona Gatt", "J. C.
// Gatt"), keeping the last name whole; else, when the last name alone is
// too long, its first words and "…" after them; and only a first word
// too long for the room alone is cut within, where "…" marks the cut.
func shortName(name string, room, size float64) string {
	fits := func(s string) bool { return textWidth(s, size) <= room }
	if fits(name) {
		return name
	}
	words := strings.Fields(name)
	for i := range len(words) - 1 {
		r, _ := utf8.DecodeRuneInString(words[i])
		words[i] = string(r) + "."
		if s := strings.Join(words, " "); fits(s) {
			return s
		}
	}
	words = strings.Fields(name)
	for n := len(words) - 1; n > 0; n-- {
		if s := strings.Join(words[:n], " ") + " …"; fits(s) {
			return s
		}
	}
	cut := ""
	for i, r := range words[0] {
		if !fits(words[0][:i] + string(r) + "…") {
			break
		}
		cut = words[0][:i] + string(r)
	}
	return cut + "…"
}

// tickStep is the step of the totals' grid: 1, 2 or 5 times a power of
// ten, so that at most seven lines, from 0 to the one above top, cover
// it.
func tickStep(top int) int {
	step := 1
	for {
		for _, m := range []int{1, 2, 5} {
			if top/(step*m) <= 5 {
				return step * m
			}
		}
		step *= 10
	}
}

// f is a coordinate as the SVG writes it: to a tenth of a unit.
func f(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
