package employment

// Rules of employee data other areas apply to the same fields sent elsewhere (the payroll
// complement of an invoice by value carries employee data inline).

// ValidSeniority tells whether v follows SAT's pattern of Nómina 1.2 Antigüedad.
func ValidSeniority(v string) bool { return seniorityPattern.MatchString(v) }

// StartDate reads a labor relation start date (yyyy-MM-dd, or a date-time whose date is kept).
func StartDate(v string) (string, bool) { return startDate(v) }
