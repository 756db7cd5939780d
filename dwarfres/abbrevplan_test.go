package dwarfres

import (
	"debug/dwarf"
	"reflect"
	"testing"
)

// TestPlanKeepsWhatStoreKeeps: kept names exactly the attributes store
// keeps, so a plan steps over nothing a die or the root needs.
func TestPlanKeepsWhatStoreKeeps(t *testing.T) {
	r := &reader{}
	for at := dwarf.Attr(0); at < 0x4000; at++ {
		var d die
		r.root = rootAttrs{}
		r.store(&d, at, formData4, 7)
		stored := d != (die{}) || r.root != (rootAttrs{})
		if stored != kept(at) {
			t.Errorf("attribute %#x: store keeps it: %v, kept says %v", uint16(at), stored, kept(at))
		}
	}
}

// TestPlanDecodesAsEachAttribute: units decoded by the abbreviations'
// plans equal the same units decoded attribute by attribute, for the
// fixtures of each compiler and DWARF version and a sample of the
// vmlinux's units.
func TestPlanDecodesAsEachAttribute(t *testing.T) {
	files := variantsAnd(t, "amd64/vmlinux", "arm64/vmlinux")
	for _, path := range files {
		f, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		units, err := f.unitsList()
		if err != nil {
			t.Fatal(err)
		}
		step := max(1, len(units)/40)
		for i := 0; i < len(units); i += step {
			u := &units[i]
			planned, err := f.decodeUnit(u)
			if err != nil {
				t.Fatalf("%s unit %#x: %v", path, u.off, err)
			}
			tab, _ := f.abbrevs.table(u.abbrevOff)
			saved := clearPlans(tab)
			each, err := f.decodeUnit(u)
			restorePlans(tab, saved)
			if err != nil {
				t.Fatalf("%s unit %#x without plans: %v", path, u.off, err)
			}
			if !reflect.DeepEqual(planned.dies, each.dies) {
				t.Fatalf("%s unit %#x: planned and attribute-by-attribute decodes differ", path, u.off)
			}
		}
		f.Close()
	}
}

func clearPlans(tab abbrevTable) map[*abbrev][]planOp {
	saved := map[*abbrev][]planOp{}
	for _, a := range tab.dense {
		if a != nil {
			saved[a], a.plan = a.plan, nil
		}
	}
	for _, a := range tab.other {
		saved[a], a.plan = a.plan, nil
	}
	return saved
}

func restorePlans(tab abbrevTable, saved map[*abbrev][]planOp) {
	for a, p := range saved {
		a.plan = p
	}
}
