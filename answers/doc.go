// Package answers holds how ballot writes its answers, apart from the data
// they are made of: the CSV encoding of each record type, once, in the two
// column sets its readers get (the downloads' and query's), and the one
// rule every CSV cell passes through (SafeCSVCell).
//
// It imports dataset, for the records and the selections a query returns,
// and nothing of HTTP, the command line or the server: server and commands
// both write bodies through it. dataset must not import it.
package answers
