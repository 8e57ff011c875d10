// Package answers holds how ballot writes its answers, apart from the data
// they are made of:
//
//   - the API's prepared answers (Answers, made by Prepare once when a
//     dataset loads): each list of records encoded to JSON inside the
//     start of the envelope, its ETags, and its gzip encoding, a DEFLATE
//     stream compressed at load with a flush at record boundaries that a
//     request splices with the records past it and the tail (gzip.go);
//     PrepareJSON makes them without the gzip encodings, for one answer
//     written once (query);
//   - the envelope's tail and meta, the next page's link (Result, from a
//     dataset.Result with Answers.Of): a request is a lookup and a write;
//   - the strong ETags of what is prepared whole or made on request, a
//     document's (DocumentETag), a download's (Download.ETag) and their
//     gzip encodings' (GzipETag);
//   - the one pool of compressors, for the lists at load, the documents
//     and what is compressed on request;
//   - the CSV encoding of each record type, once, in the two column sets
//     its readers get (the downloads' and query's), and the one rule every
//     CSV cell passes through (SafeCSVCell).
//
// It imports dataset, for the records and the results a query returns,
// and nothing of HTTP, the command line or the server: server and commands
// both write bodies through it. dataset must not import it.
package answers
