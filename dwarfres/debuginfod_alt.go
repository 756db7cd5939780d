package dwarfres

// altFetch is the fetcher of dwz supplementary files by build-id: l's
// first debuginfod source, nil when it has none. debuginfod serves a dwz
// common file as the debuginfo of its build-id.
func (l *Locator) altFetch() func(string) (string, []string, error) {
	for _, s := range l.Debug {
		if d, ok := s.(*Debuginfod); ok {
			return func(id string) (string, []string, error) {
				return d.fetchAll(id, KindDebuginfo, "")
			}
		}
	}
	return nil
}

// fetchAlt fetches the supplementary file of build-id id after the local
// candidates failed: a server's failure is the error (naming its URL);
// none having the file is the *AltFileError, the URLs among the places
// tried.
func fetchAlt(fetch func(string) (string, []string, error), cands []string, name, id string) (*File, error) {
	p, tried, err := fetch(id)
	if err != nil {
		return nil, err
	}
	if p == "" {
		return nil, &AltFileError{Name: name, BuildID: id, Tried: append(cands, tried...)}
	}
	return openAlt([]string{p}, name, id, false)
}
