#!/usr/bin/env python3
"""specport.py: derive a conformance spec list for a new kernel generation
from the list of the one before, spec by spec, in the same order.

usage: specport.py OLDGEN NEWGEN ARCH [--modules] [--rename OLD=NEW ...]
                   [--body-rename OLD=NEW ...] > LIST

Reads testdata/conformance/OLDGEN/[modules/]specs-ARCH.txt and the corpus's
OLDGEN and NEWGEN kernels ($DWPROBE_CORPUS/GEN/ARCH/vmlinux, the module
debuginfo beside it, linux-GEN), with bin/dwprobe (make build):

- a function renamed (--rename) takes its new name; a function whose body
  moved into another (--body-rename: getname_flags -> do_getname) keeps its
  name for entries, offsets and %return, and takes the other's for lines,
  lazy patterns, -L, -V and arguments;
- FUNC:N and FUNC:N-M (N+K) follow the line's text: the function's -L
  listing on OLDGEN against NEWGEN's (difflib); a line whose statement is
  gone takes the line at its place in the rewritten block; lines past the
  end stay as they were;
- SRC:N follows the file's text the same way;
- FUNC+OFF: an instruction boundary moves to the next boundary of NEWGEN's
  code, an offset inside an instruction stays inside one, offsets at or past
  the end follow the size (amd64: objdump; arm64: 4-byte instructions);
- a raw address becomes the same symbol and offset in NEWGEN;
- a spec whose function or file NEWGEN lacks (and OLDGEN had) is dropped,
  and named on stderr.
Arguments are kept as written. The output is a draft to review: the header
says how it was made.
"""
import bisect
import difflib
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CORPUS = os.environ.get("DWPROBE_CORPUS", os.path.expanduser("~/.cache/dwprobe-corpus"))
DWPROBE = os.path.join(ROOT, "bin", "dwprobe")


def run(args):
    p = subprocess.run(args, capture_output=True, text=True, errors="replace")
    return p.returncode, p.stdout


class Gen:
    def __init__(self, gen, arch):
        self.gen, self.arch = gen, arch
        d = os.path.join(CORPUS, gen, arch)
        self.vmlinux = os.path.join(d, "vmlinux")
        self.src = os.path.join(CORPUS, "linux-" + gen)
        mods = os.path.join(d, "dbg/usr/lib/debug/lib/modules")
        rel = sorted(os.listdir(mods))[0] if os.path.isdir(mods) else ""
        self.moddir = os.path.join(mods, rel, "kernel")
        self.listings = {}
        self.syms = {}

    def target(self, module):
        if module:
            return ["-m", os.path.join(self.moddir, module)]
        return ["-k", self.vmlinux]

    def listing(self, point, module):
        """The -L listing of point: [(line or None, text)], or None."""
        key = (point, module)
        if key not in self.listings:
            rc, out = run([DWPROBE] + self.target(module) + ["-s", self.src, "-L", point])
            rows = None
            if rc == 0:
                rows = []
                for l in out.splitlines()[1:]:
                    m = re.match(r"^\s*(\d+)?\s{2}(.*)$", l)
                    if m:
                        rows.append((int(m.group(1)) if m.group(1) else None, m.group(2).strip()))
            self.listings[key] = rows
        return self.listings[key]

    def symbols(self, module):
        """name -> (value, size) of the FUNC/OBJECT symbols, and a sorted
        address list for lookups."""
        if module not in self.syms:
            path = os.path.join(self.moddir, module) if module else self.vmlinux
            rc, out = run(["readelf", "-sW", path])
            tab, addrs = {}, []
            for l in out.splitlines():
                f = l.split()
                if len(f) >= 8 and f[3] in ("FUNC", "OBJECT"):
                    try:
                        v, s = int(f[1], 16), int(f[2], 0)
                    except ValueError:
                        continue
                    tab.setdefault(f[7], (v, s))
                    addrs.append((v, s, f[7]))
            addrs.sort()
            self.syms[module] = (tab, addrs)
        return self.syms[module]

    def boundaries(self, func, module):
        """The instruction offsets of func (amd64: objdump), or None."""
        tab, _ = self.symbols(module)
        if func not in tab:
            return None
        v, s = tab[func]
        if self.arch == "arm64":
            return list(range(0, s + 1, 4))
        path = os.path.join(self.moddir, module) if module else self.vmlinux
        if module:
            rc, out = run(["objdump", "-d", "--no-show-raw-insn", "--disassemble=" + func, path])
        else:
            rc, out = run(["objdump", "-d", "--no-show-raw-insn", "--start-address=%#x" % v,
                           "--stop-address=%#x" % (v + s), path])
        offs = []
        base = None
        for l in out.splitlines():
            m = re.match(r"^\s*([0-9a-f]+):\s", l)
            if m:
                a = int(m.group(1), 16)
                if base is None:
                    base = a
                offs.append(a - base)
        return offs + [s] if offs else None


def map_line(old, new, n):
    """Map relative line n of listing old to listing new by text."""
    on = [t for (ln, t) in old if ln is not None or True]
    olines = [ln for (ln, t) in old]
    nlines = [ln for (ln, t) in new]
    if n not in olines:
        return n
    i = olines.index(n)
    sm = difflib.SequenceMatcher(None, [t for _, t in old], [t for _, t in new], autojunk=False)
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if i1 <= i < i2:
            if tag == "equal":
                j = j1 + (i - i1)
            elif j2 > j1:
                j = j1 + min(i - i1, j2 - j1 - 1)
            else:
                j = min(j1, len(new) - 1)
            # the nearest numbered row at or after j
            for k in list(range(j, len(new))) + list(range(j - 1, -1, -1)):
                if nlines[k] is not None:
                    return nlines[k]
    return n


def file_lines(src, path):
    try:
        with open(os.path.join(src, path), errors="replace") as f:
            return [(i + 1, l.strip()) for i, l in enumerate(f)]
    except OSError:
        return None


POINT = re.compile(r"^(?P<ev>(?:[A-Za-z_][\w]*:)?[A-Za-z_][\w.]*=)?(?P<pt>\S*)(?P<args>.*)$", re.S)
FUNC = re.compile(r"^(?P<name>[\w.*?\[\]!]+)(?P<mods>.*)$")


class Porter:
    def __init__(self, old, new, renames, body):
        self.old, self.new, self.renames, self.body = old, new, renames, body
        self.dropped = []

    def port_line_spec(self, name, at, n, module, newname=None):
        """Port relative line n of function name(@at)."""
        pt = name + ("@" + at if at else "")
        ptn = (newname or self.renames.get(name, name)) + ("@" + at if at else "")
        ol, nl = self.old.listing(pt, module), self.new.listing(ptn, module)
        if ol is None or nl is None:
            return n, ol is not None and nl is None
        if ol and n > max((x for x, _ in ol if x is not None), default=0):
            return n, False
        return map_line(ol, nl, n), False

    def port_offset(self, name, off, module):
        ob, nb = self.old.boundaries(name, module), self.new.boundaries(self.renames.get(name, name), module)
        if ob is None or nb is None:
            return off
        osize, nsize = ob[-1], nb[-1]
        if off >= osize - 1 and osize > 0:
            return off - osize + nsize
        if off in ob:
            i = bisect.bisect_left(nb, off)
            return nb[min(i, len(nb) - 1)]
        # inside an instruction: stay inside one
        if off not in nb:
            return off
        i = bisect.bisect_left(nb, off)
        if i + 1 < len(nb) and nb[i + 1] - nb[i] > 1:
            return off + 1
        return off

    def port(self, kind, spec, module):
        """The ported spec, or None to drop it."""
        m = POINT.match(spec)
        ev, pt, args = m.group("ev") or "", m.group("pt"), m.group("args")
        lost = False
        if re.match(r"^0[xX][0-9a-fA-F]+", pt):
            am = re.match(r"^(0[xX][0-9a-fA-F]+)(.*)$", pt)
            a = int(am.group(1), 16)
            _, addrs = self.old.symbols(module)
            i = bisect.bisect_right(addrs, (a, 1 << 62, "")) - 1
            # a kernel address inside a symbol moves with it; any other
            # (0x1000, _text) stays
            if a >= 1 << 63 and i >= 0 and addrs[i][0] <= a < addrs[i][0] + max(addrs[i][1], 1):
                v, _, name = addrs[i]
                ntab, _ = self.new.symbols(module)
                name = self.renames.get(name, name)
                if name not in ntab:
                    return spec
                na = ntab[name][0] + (a - v)
                digits = am.group(1)[2:]
                s = "%x" % na
                if digits.isupper():
                    s = s.upper()
                pt = am.group(1)[:2] + s + am.group(2)
        elif re.match(r"^[\w./-]+\.[chS](?=[:;]|$)", pt) or (pt.split(":")[0].count("/") and "@" not in pt):
            fm = re.match(r"^(?P<src>[^:;]+)(?P<rest>.*)$", pt)
            src, rest = fm.group("src"), fm.group("rest")
            ol, nl = file_lines(self.old.src, src), file_lines(self.new.src, src)
            if ol is not None and nl is None:
                return None
            lm = re.match(r"^:(\d+)(?:([-+])(\d+))?(.*)$", rest)
            if lm and ol is not None:
                a = map_line(ol, nl, int(lm.group(1)))
                tail = ""
                if lm.group(2) == "-":
                    tail = "-%d" % map_line(ol, nl, int(lm.group(3)))
                elif lm.group(2) == "+":
                    tail = "+" + lm.group(3)
                pt = src + ":%d" % a + tail + lm.group(4)
        else:
            fm = FUNC.match(pt)
            if fm:
                name, mods = fm.group("name"), fm.group("mods")
                at = ""
                am = re.match(r"^@([^:;+%]+)(.*)$", mods)
                if am:
                    at, mods = am.group(1), am.group(2)
                newname = self.renames.get(name, name)
                lm = re.match(r"^:(\d+)(?:([-+])(\d+))?(.*)$", mods)
                om = re.match(r"^\+(0[xX][0-9a-fA-F]+|\d+)(.*)$", mods)
                if name in self.body and (lm or mods.startswith(";") or kind in "LV" or
                                          (args.strip() and "%return" not in mods)):
                    newname = self.body[name]
                if lm:
                    a, lost = self.port_line_spec(name, at, int(lm.group(1)), module, newname)
                    tail = ""
                    if lm.group(2) == "-":
                        tail = "-%d" % self.port_line_spec(name, at, int(lm.group(3)), module, newname)[0]
                    elif lm.group(2) == "+":
                        tail = "+" + lm.group(3)
                    mods = ":%d" % a + tail + lm.group(4)
                elif om:
                    o = om.group(1)
                    off = int(o, 0)
                    no = self.port_offset(name, off, module)
                    mods = "+" + ((o[:2] + "%x" % no) if o[:2].lower() == "0x" else "%d" % no) + om.group(2)
                elif not any(c in name for c in "*?[!"):
                    pt0 = name + ("@" + at if at else "")
                    lost = (self.old.listing(pt0, module) is not None and
                            self.new.listing(newname + ("@" + at if at else ""), module) is None and
                            name not in self.new.symbols(module)[0] and newname not in self.new.symbols(module)[0])
                pt = newname + ("@" + at if at else "") + mods
        if lost:
            return None
        return ev + pt + args


def main():
    argv = sys.argv[1:]
    modules = "--modules" in argv
    renames, body = {}, {}
    rest = []
    i = 0
    while i < len(argv):
        if argv[i] in ("--rename", "--body-rename"):
            o, n = argv[i + 1].split("=", 1)
            (renames if argv[i] == "--rename" else body)[o] = n
            i += 2
            continue
        if argv[i] != "--modules":
            rest.append(argv[i])
        i += 1
    oldgen, newgen, arch = rest
    old, new = Gen(oldgen, arch), Gen(newgen, arch)
    porter = Porter(old, new, renames, body)
    path = os.path.join(ROOT, "testdata/conformance", oldgen, "modules" if modules else "", "specs-%s.txt" % arch)
    lines = open(path).read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    entries = []
    for l in lines:
        if l == "" or l.startswith("#"):
            entries.append((l, None))
            continue
        kind, spec = l.split("\t", 1)
        s, _, opts = spec.partition("\t")
        module = ""
        o = opts.split()
        if "-m" in o:
            module = o[o.index("-m") + 1]
        entries.append((l, (kind, s, opts, module)))

    # Warm the listings on all cores: they are what costs.
    pts = set()
    for _, e in entries:
        if e:
            m = POINT.match(e[1])
            fm = FUNC.match(m.group("pt"))
            if fm and not re.match(r"^0[xX]", m.group("pt")):
                am = re.match(r"^@([^:;+%]+)", fm.group("mods"))
                at = "@" + am.group(1) if am else ""
                name = fm.group("name")
                pts.add((old, name + at, e[3]))
                pts.add((new, renames.get(name, name) + at, e[3]))
                if name in body:
                    pts.add((new, body[name] + at, e[3]))
    with ThreadPoolExecutor(os.cpu_count() or 2) as ex:
        list(ex.map(lambda x: x[0].listing(x[1], x[2]), pts))

    out = []
    dropped = []
    seen = set()
    for l, e in entries:
        if e is None:
            out.append(l)
            continue
        kind, s, opts, module = e
        ns = porter.port(kind, s, module)
        if ns is None:
            dropped.append(l)
            continue
        nl = kind + "\t" + ns + ("\t" + opts if opts else "")
        # Two lines that land on one: the next line instead, so that the
        # list keeps its size.
        lm = re.match(r"^(\S*?:)(\d+)(.*)$", ns, re.S)
        for _ in range(40):
            if nl not in seen or not lm or "/" in lm.group(1) and kind == "L":
                break
            ns = lm.group(1) + str(int(lm.group(2)) + 1) + lm.group(3)
            lm = re.match(r"^(\S*?:)(\d+)(.*)$", ns, re.S)
            nl = kind + "\t" + ns + ("\t" + opts if opts else "")
        if nl in seen:
            continue
        seen.add(nl)
        out.append(nl)
    for d in dropped:
        print("specport: dropped (gone in %s): %s" % (newgen, d.replace("\t", " ")), file=sys.stderr)
    print("\n".join(out))


if __name__ == "__main__":
    main()
