# SPDX-License-Identifier: GPL-2.0
"""The memory an x86-64 instruction touches, from gdb's AT&T disassembly.

bench/insn-count.py single-steps the guest and calls accesses() on each
instruction before it executes, with the registers of that moment: explicit
memory operands (disp(base,index,scale), %fs:/%gs: with the segment's base,
rip-relative, absolute) and the stack slots push, pop, call, ret and leave
use implicitly.  lea and the nop forms name memory without touching it.

Run as a script, it checks itself on sample instructions (make check).
"""
import re

MASK = (1 << 64) - 1
LINE = 64

_R64 = "rax rbx rcx rdx rsi rdi rbp rsp rip".split() + [f"r{i}" for i in range(8, 16)]
_R32 = "eax ebx ecx edx esi edi ebp esp eip".split() + [f"r{i}d" for i in range(8, 16)]
_R16 = "ax bx cx dx si di bp sp".split() + [f"r{i}w" for i in range(8, 16)]
_R8 = "al bl cl dl ah bh ch dh sil dil bpl spl".split() + [f"r{i}b" for i in range(8, 16)] \
    + [f"r{i}l" for i in range(8, 16)]
REG_SIZE = {**{r: 8 for r in _R64}, **{r: 4 for r in _R32},
            **{r: 2 for r in _R16}, **{r: 1 for r in _R8}}
# the 64-bit register whose low part a narrower name is
_WIDE = {**{r: r for r in _R64},
         **dict(zip(_R32, _R64)),
         **dict(zip(_R16, "rax rbx rcx rdx rsi rdi rbp rsp".split() + [f"r{i}" for i in range(8, 16)])),
         **{f"r{i}{s}": f"r{i}" for i in range(8, 16) for s in "bl"}}

PREFIXES = {"lock", "rep", "repz", "repe", "repnz", "repne", "notrack", "bnd",
            "data16", "data32", "addr32", "cs", "ds", "es", "ss", "fs", "gs",
            "rex", "rex.w", "xacquire", "xrelease"}
BRANCHES = re.compile(r"^(j[a-z]+|call[qw]?|loop[a-z]*|xbegin)$")
# named memory, never touched
NO_ACCESS = re.compile(r"^(lea[wlq]?|nop[wlq]?|endbr(32|64)|bnd[a-z]*)$")
# the base mnemonics that take an operand-size suffix b/w/l/q
_SUFFIXED = set("""mov add sub and or xor cmp test inc dec neg not adc sbb push pop
    shl shr sar sal rol ror rcl rcr bt bts btr btc xadd cmpxchg xchg imul mul div idiv
    movnti stos lods movs scas cmps""".split())
_SUFFIX = {"b": 1, "w": 2, "l": 4, "q": 8}
# movzbl, movswq, movslq...: the source's size is the first letter
_EXTEND = re.compile(r"^mov[sz]([bwl])[wlq]$")

_MEM = re.compile(r"""^\*?(?:%(?P<seg>[c-gs]s):)?
    (?P<disp>-?(?:0x[0-9a-f]+|\d+))?
    (?:\((?P<base>%\w+)?(?:,(?P<index>%\w+)?(?:,(?P<scale>\d+))?)?\))?$""", re.X)


def split(asm):
    """(prefixes, mnemonic, operands) of one line of gdb's x/i output."""
    asm = asm.split("#", 1)[0]
    asm = re.sub(r"<[^>]*>", "", asm).strip()
    words = asm.split(None, 1) if asm else []
    prefixes = []
    while words and words[0] in PREFIXES:
        prefixes.append(words[0])
        words = words[1].split(None, 1) if len(words) > 1 else []
    if not words:
        return prefixes, "", []
    ops, depth, cur = [], 0, ""
    for ch in words[1] if len(words) > 1 else "":
        if ch == "," and depth == 0:
            ops.append(cur.strip())
            cur = ""
            continue
        depth += ch == "("
        depth -= ch == ")"
        cur += ch
    if cur.strip():
        ops.append(cur.strip())
    return prefixes, words[0], ops


def _reg(op):
    op = op.lstrip("*")
    return op[1:] if op.startswith("%") and op[1:] in REG_SIZE or \
        re.match(r"^%[xyz]mm\d+$", op) else None


def _reg_size(name):
    m = re.match(r"^([xyz])mm\d+$", name)
    return {"x": 16, "y": 32, "z": 64}[m.group(1)] if m else REG_SIZE[name]


def _size(mnem, ops, memop):
    """Bytes a memory operand of mnem covers (8 when nothing says)."""
    m = _EXTEND.match(mnem)
    if m:
        return _SUFFIX[m.group(1)]
    if mnem.startswith("cmpxchg16b"):
        return 16
    if mnem.startswith("cmpxchg8b"):
        return 8
    # a register operand gives the size, except a shift's count in %cl
    shift = re.match(r"^(sh|sa|ro|rc)[lr][bwlq]?$", mnem)
    for op in ops:
        r = _reg(op)
        if r and op != memop and not (shift and r == "cl"):
            return _reg_size(r)
    if mnem[-1:] in _SUFFIX and mnem[:-1] in _SUFFIXED:
        return _SUFFIX[mnem[-1]]
    return 8


def memory_operand(op, mnem):
    """The regex match of op if it is a memory reference, else None."""
    if op.startswith("$") or _reg(op):
        return None
    m = _MEM.match(op)
    if not m:
        return None
    bare = not m.group("seg") and "(" not in op
    if bare and (BRANCHES.match(mnem) and not op.startswith("*")):
        return None         # a direct branch's target, not memory
    if not m.group("disp") and "(" not in op:
        return None
    return m


def _value(reg, name):
    name = name.lstrip("%")
    v = reg(_WIDE[name]) & MASK
    return v & ((1 << (8 * REG_SIZE[name])) - 1)


def accesses(asm, pc, length, reg):
    """[(address, size, implicit)] the instruction at pc touches.

    reg(name) gives a register's value before the instruction (64-bit
    names: rsp, rbp...; fs_base and gs_base for the segments).  implicit
    marks the stack slots of push/pop/call/ret/leave.
    """
    prefixes, mnem, ops = split(asm)
    out = []
    if not mnem or NO_ACCESS.match(mnem):
        return out
    for op in ops:
        m = memory_operand(op, mnem)
        if not m:
            continue
        ea = int(m.group("disp") or "0", 0)
        if m.group("seg") in ("fs", "gs"):
            ea += reg(m.group("seg") + "_base")
        base = m.group("base")
        if base == "%rip":
            ea += pc + length
        elif base:
            ea += _value(reg, base)
        if m.group("index"):
            ea += _value(reg, m.group("index")) * int(m.group("scale") or "1")
        out.append((ea & MASK, _size(mnem, ops, op), False))
    rsp = reg("rsp") & MASK
    if re.match(r"^(push[wlq]?|pushf[wq]?|call[qw]?)$", mnem):
        out.append(((rsp - 8) & MASK, 8, True))
    elif re.match(r"^(pop[wlq]?|popf[wq]?|ret[qw]?|lret[qw]?)$", mnem):
        out.append((rsp, 8, True))
    elif mnem in ("leave", "leaveq"):
        out.append((reg("rbp") & MASK, 8, True))
    return out


def is_rep(asm):
    """A rep-prefixed instruction: single-stepping it takes one step per iteration."""
    return any(p.startswith("rep") for p in split(asm)[0])


def lines(ea, size):
    """The 64-byte cache lines [ea, ea + size) covers."""
    return range(ea // LINE, (ea + size - 1) // LINE + 1)


def _selftest():
    regs = {"rax": 0x1000, "rbx": 0, "rcx": 3, "rdx": 0, "rsi": 0x2000, "rdi": 0x3000,
            "rbp": 0xffff888000100000, "rsp": 0xffffc90000013f00, "r10": 0x4008,
            "r12": 0x5000, "r8": 0x80, "gs_base": 0xffff88803ec00000, "fs_base": 0}
    reg = regs.__getitem__
    pc = 0xffffffffc0a01000
    cases = [
        ("mov    0x8(%rdi),%rax", 4, [(0x3008, 8, False)]),
        ("mov    %gs:0x7ee1d0c4(%rip),%rbp        # 0x2c0b0", 8,
         [((0xffff88803ec00000 + pc + 8 + 0x7ee1d0c4) & MASK, 8, False)]),
        ("incl   %gs:0x1234", 8, [(0xffff88803ec00000 + 0x1234, 4, False)]),
        ("mov    %gs:0x28,%eax", 9, [(0xffff88803ec00028, 4, False)]),
        ("nopl   0x0(%rax,%rax,1)", 5, []),
        ("data16 cs nopw 0x0(%rax,%rax,1)", 11, []),
        ("lea    0x40(%r8,%rbp,1),%rax", 5, []),
        ("movq   $0x0,(%r10)", 7, [(0x4008, 8, False)]),
        ("mov    -0x10(,%rcx,8),%rdx", 8, [(3 * 8 - 0x10, 8, False)]),
        ("movzwl 0x4(%rax),%eax", 4, [(0x1004, 2, False)]),
        ("movslq 0x4(%rax),%rdx", 4, [(0x1004, 4, False)]),
        ("lock cmpxchg %r14,(%r12)", 5, [(0x5000, 8, False)]),
        ("shll   %cl,0x10(%rax)", 3, [(0x1010, 4, False)]),
        ("push   %rbx", 1, [(0xffffc90000013ef8, 8, True)]),
        ("pop    %rbx", 1, [(0xffffc90000013f00, 8, True)]),
        ("ret", 1, [(0xffffc90000013f00, 8, True)]),
        ("call   0xffffffff81001000", 5, [(0xffffc90000013ef8, 8, True)]),
        ("call   *0x10(%rax)", 3, [(0x1010, 8, False), (0xffffc90000013ef8, 8, True)]),
        ("jmp    0xffffffffc0a01234 <hwtrace_log+0x14>", 5, []),
        ("jmp    *%rax", 2, []),
        ("rep stos %rax,%es:(%rdi)", 3, [(0x3000, 8, False)]),
        ("rep movsb %ds:(%rsi),%es:(%rdi)", 2, [(0x2000, 1, False), (0x3000, 1, False)]),
        ("mov    0x0(%rip),%eax        # 0xffffffffc0a03040", 6,
         [(pc + 6, 4, False)]),
        ("mov    %eax,0x3c(%rax)", 3, [(0x103c, 4, False)]),
        ("movabs 0xffffffff82000000,%rax", 10, [(0xffffffff82000000, 8, False)]),
        ("movabs $0xffffffff82000000,%rax", 10, []),
        ("cmpxchg16b (%rsi)", 4, [(0x2000, 16, False)]),
        ("mov    (%rax,%rcx,4),%dl", 3, [(0x100c, 1, False)]),
    ]
    bad = 0
    for asm, length, want in cases:
        got = accesses(asm, pc, length, reg)
        if got != want:
            print(f"not ok: {asm!r}: got {[(hex(a), s, i) for a, s, i in got]}, "
                  f"want {[(hex(a), s, i) for a, s, i in want]}")
            bad += 1
    if list(lines(0x103c, 8)) != [0x40, 0x41] or list(lines(0x1040, 8)) != [0x41]:
        print("not ok: lines() of a straddling access")
        bad += 1
    if not is_rep("rep stos %rax,%es:(%rdi)") or is_rep("mov %rax,%rbx"):
        print("not ok: is_rep")
        bad += 1
    print(f"insn_ops: {len(cases) + 2 - bad} passed, {bad} failed")
    return bad


if __name__ == "__main__":
    raise SystemExit(1 if _selftest() else 0)
