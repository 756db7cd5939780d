package dwarfres

// dwpPackage is an opened BINARY.dwp.
type dwpPackage struct{}

// openDWP opens BINARY.dwp next to the binary, nil when there is none.
func (f *File) openDWP() (*dwpPackage, error) { return nil, nil }

func (p *dwpPackage) unit(s *skeleton) (*dwoSections, error) { return nil, nil }
