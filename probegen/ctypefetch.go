package probegen

import (
	"errors"
	"fmt"
	"strings"

	"github.com/dwprobe/dwprobe/probegen/internal/ctype"
)

// The C-type walk (probegen/internal/ctype) applied to a fetcharg under
// construction: ctype says how far to move and whether through a
// pointer, the fetch moves.

// stepField applies one ->member, .member or [index] to f, as perf's
// convert_variable_fields does, and returns where the walk then stands.
// On an error it returns cur, which the message is about.
func stepField(f *fetch, cur ctype.Val, fl field, user bool) (ctype.Val, error) {
	var s ctype.Step
	var err error
	if fl.isIdx {
		s, err = cur.Index(fl.index)
	} else {
		s, err = cur.Select(fl.name, fl.arrow)
	}
	if err != nil {
		return cur, memberErr(err)
	}
	if s.Load {
		return s.To, f.load(s.Off, user)
	}
	return s.To, f.member(s.Off, user)
}

// memberErr is err with a missing member given out as a *MemberError,
// suggesting the nearest of the type's member names.
func memberErr(err error) error {
	var me *ctype.MemberError
	if !errors.As(err, &me) {
		return err
	}
	return &MemberError{Var: me.Var, Type: me.Type, Member: me.Member, Closest: closest(me.Member, me.Names, 3)}
}

// fetchType is perf's convert_variable_type: the fetch type for cur under
// cast, adjusting f for strings.
func fetchType(f *fetch, cur ctype.Val, cast string, user bool) (string, error) {
	switch cast {
	case "", "string", "ustring", "u", "s", "x":
	default:
		if f.imm && (strings.HasPrefix(cast, "string") || cast == "ustring") {
			return "", errors.New("a constant is not a string")
		}
		return cast, nil
	}
	if cast == "string" || cast == "ustring" {
		array, err := cur.Chars()
		if err != nil {
			return "", err
		}
		return cast, fetchString(f, cur, array, user)
	}
	if cur.Member != nil && cur.Member.BitSize() > 0 {
		bf, err := cur.Member.BitField()
		if err != nil {
			return "", err
		}
		if len(f.refs) == 0 {
			return "", fmt.Errorf("bitfield %s is not in memory", cur.Name)
		}
		return fmt.Sprintf("b%d@%d/%d", bf.Width, bf.Shift, bf.Container*8), nil
	}
	return cur.FetchType(cast)
}

// fetchString makes f read the string cur, a char pointer or (array)
// array, points to or holds. A global array whose address is the value
// (@sym) is read at that address.
func fetchString(f *fetch, cur ctype.Val, array, user bool) error {
	if !array {
		return f.load(0, user)
	}
	if len(f.refs) > 0 && !f.addrVal {
		return nil
	}
	if !(f.sym && f.addrVal) {
		return fmt.Errorf("array %s is not in memory", cur.Name)
	}
	return f.load(0, user)
}
