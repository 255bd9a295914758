// Package loadquery is the one engine behind the load endpoints (GET /api/v4/<resource>/load:
// catalogs, webhooks, deliveries), with the semantics of DevExtreme.AspNet.Data: sort, filter,
// group, select, totalSummary and groupSummary (JSON strings), skip and take, requireTotalCount
// and requireGroupCount (spec 1 §7.6).
//
// A resource declares its fields once, as a Schema whose getters read a record without turning
// it into a map:
//
//	var webhookSchema = loadquery.NewSchema(
//		loadquery.Field[*Webhook]{Name: "id", Kind: loadquery.String, Get: func(w *Webhook) any { return &w.ID }},
//		loadquery.Field[*Webhook]{Name: "createdAt", Kind: loadquery.Date, Get: func(w *Webhook) any { return w.CreatedAt }},
//		loadquery.Field[*Webhook]{Name: "person", Kind: loadquery.Object, Get: func(w *Webhook) any { return w.Person },
//			Fields: []loadquery.Field[*Webhook]{{Name: "id", Kind: loadquery.String, Get: func(w *Webhook) any {
//				if w.Person == nil {
//					return nil
//				}
//				return &w.Person.ID
//			}}}},
//	)
//
// and a handler calls the one entry point:
//
//	res, fs := loadquery.Load(webhookSchema, records, r.URL.Query())
//	if fs != nil {
//		return apierr.Invalid(fs...) // 400, every failure at once
//	}
//	// write res as JSON, without the envelope
//
// Load parses the query (ParseQuery), checks it against the schema (Schema.Validate: fields
// that do not exist, objects or lists outside select, summaries and group intervals that do not
// apply, malformed JSON; each problem one failure named after its parameter, with the exact
// texts of spec 1 §7.6) and runs it over the records in memory: filter, then sort (group keys
// first; stable), then summaries over every match, then grouping, then skip and take (over
// top-level groups when grouping), then select. Run does the same for Options built in code.
//
// Semantics chosen where DevExtreme leaves room, or differs by data source:
//
//   - Field names are case-insensitive everywhere; select answers with the schema's spelling.
//   - Text is compared ignoring case by every operator (=, <>, <, contains...), as DevExtreme
//     does for in-memory data; sorting text follows a culture-like order (accents and case only
//     break ties, lower case first). contains, startswith, endswith on a non-text field read
//     its text; a null field reads as "".
//   - Dates are compared as instants. Records give the wire string yyyy-MM-ddTHH:mm:ss.fff with or
//     without a trailing Z, or a time.Time; a string without offset is read as UTC, and so are
//     the filter's values (also yyyy-MM-dd, yyyy/MM/dd HH:mm:ss and RFC 3339). Date intervals
//     (year, quarter, month, day, dayOfWeek with Sunday 0, hour, minute, second) are taken in
//     UTC, that is, on the wall clock a string without offset shows.
//   - A filter value that cannot be converted to the field's kind ("abc" for a number) makes
//     its condition false. Null equals only null; <, <=, >, >= with a null on either side are
//     false.
//   - Groups are ordered by their key (the interval's key when there is one), then by sort.
//     Group keys are the records' values as the getter gives them; an interval's key is a
//     number. summary of a group and count (only on a last level that is not expanded) are
//     null when absent, as in DevExtreme.
//   - Summaries are computed from the records, also under select.
//   - A filter that is valid JSON but not a filter (an unknown operator, "and" mixed with "or"
//     in one group, a list as a value) fails with the malformed-parameter text.
//
// Not supported: isCountQuery, the anyof/noneof operators, custom summaries and accessors,
// DevExtreme's server-side PrimaryKey/DefaultSort options (without sort, records keep the
// order they are given in).
//
// Speed: getters that return a pointer into the record (&r.Description, with *Record as T) read
// without allocating; a filter, sort and take over the 52,514 records of c_ClaveProdServ take a
// few milliseconds (BenchmarkLoadCatalog). A page is taken with a bounded heap, not a full sort.
package loadquery
