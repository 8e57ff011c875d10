package maltagen

// The hand-written facts that the CSV files do not state in a form a program
// can read. Generate fails when the CSV files and these tables disagree, so a
// change to the sources cannot slip through unreviewed.

// independent is the party_abbreviation that candidates.csv uses for
// independent candidates. Its row in parties.csv is not a party.
const independent = "IND"

// parenthetical says what the bracketed part at the end of a party's name in
// parties.csv is.
type parenthetical int

const (
	// noParen: the CSV name has no bracketed part.
	noParen parenthetical = iota
	// englishParen: the bracketed part is the party's English name, which
	// becomes name_en.
	englishParen
	// otherParen: the bracketed part is something else (ADPD's is its Maltese
	// long form), so name_en is null.
	otherParen
)

// partyFact is what is known about a party beyond its parties.csv row.
type partyFact struct {
	// shortName is the abbreviation as the party itself writes it.
	shortName string
	paren     parenthetical
}

// partyFacts is keyed by the abbreviation in parties.csv.
var partyFacts = map[string]partyFact{
	"PL":   {shortName: "PL", paren: englishParen}, // Partit Laburista (Labour Party)
	"PN":   {shortName: "PN", paren: englishParen}, // Partit Nazzjonalista (Nationalist Party)
	"ADPD": {shortName: "ADPD", paren: otherParen}, // (Alternattiva Demokratika – Partit Demokratiku)
	"ABBA": {shortName: "ABBA", paren: noParen},    // no expansion found in the sources
	"VOLT": {shortName: "Volt", paren: noParen},    // the party writes "Volt", not "VOLT"
	"PP":   {shortName: "PP", paren: englishParen}, // Partit Popolari (People's Party)
}

// localityEnglish gives the English name of the councils whose note in
// districts.csv starts with one. Generate checks that the note does.
var localityEnglish = map[string]string{
	"Birgu":             "Vittoriosa",
	"Isla":              "Senglea",
	"Bormla":            "Cospicua",
	"San Ġiljan":        "St Julian's",
	"San Pawl il-Baħar": "St Paul's Bay",
}

// nameSplit is a candidate's name cut into given name and family name.
type nameSplit struct {
	given, family string
}

// nameSplitOverrides corrects the inferred split of candidates_provenance.csv
// for the candidates named here, without editing the copied source file.
//
// Every row of that file was reviewed by hand against the rule that Maltese
// double family names (Azzopardi Tanti, Zammit Lewis, Agius Galea, Mifsud
// Bonnici, Fenech Adami, Perici Calascione, de Marco, De Giovanni, …) and
// compound given names (Jean Claude, Malcolm Paul, Mark Anthony, Ivan J., …)
// are kept whole. No row needed correcting, so the table is empty; a
// correction found later goes here, with a comment giving its reason.
var nameSplitOverrides = map[string]nameSplit{}

// localityKey names one locality row: its district and its council name.
type localityKey struct {
	district int
	name     string
}

// localitySlugs gives a slug other than the slug of the name, where two
// different places share a name. A slug that appears in two districts then
// always means a council split between them.
var localitySlugs = map[localityKey]string{
	// Gozo's Żebbuġ is a different council from the Żebbuġ of districts 6
	// and 7 on Malta.
	{13, "Żebbuġ"}: "zebbug-gozo",
}

// incumbents are the candidates a source names as sitting MPs when the
// election was called, keyed by their name in candidates.csv, with the
// source. TALK-17 lists the outgoing MPs who stood and were not re-elected
// at the count (it writes "Maria Deguara" for Maria Fatima Deguara; its
// "Karol Azzopardi" is left out, as it cannot be told apart with certainty);
// MT-GOZO-BORG also calls Kevin Cutajar the incumbent. No source lists the
// outgoing MPs who were re-elected, so every other candidate's
// is_incumbent is null (unknown), never false.
var incumbents = map[string]string{
	"Evarist Bartolo":        "TALK-17",
	"Rosianne Cutajar":       "TALK-17",
	"José Herrera":           "TALK-17",
	"Jean Claude Micallef":   "TALK-17",
	"Oliver Scicluna":        "TALK-17",
	"Joe Mizzi":              "TALK-17",
	"Glenn Bedingfield":      "TALK-17",
	"Anthony Agius Decelis":  "TALK-17",
	"Jason Azzopardi":        "TALK-17",
	"Claudette Buttigieg":    "TALK-17",
	"Kevin Cutajar":          "TALK-17; MT-GOZO-BORG",
	"Maria Fatima Deguara":   "TALK-17",
	"Karl Gouder":            "TALK-17",
	"Carmelo Mifsud Bonnici": "TALK-17",
	"Edwin Vassallo":         "TALK-17",
}
