"""Names generated C++ must not take for a kernel's own: C++'s keywords, the names the code
generators write and the names of pto-isa they refer to (a variable of that name would hide
them). The CCE generator, its host code and the PTO MLIR's function symbols (which PTOAS
writes into C++ as they are) all keep clear of them."""

from __future__ import annotations

import re

CPP_KEYWORDS = frozenset(
    """alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t
    char16_t char32_t class compl concept const consteval constexpr constinit const_cast continue
    co_await co_return co_yield decltype default delete do double dynamic_cast else enum explicit
    export extern false float for friend goto if inline int long mutable namespace new noexcept not
    not_eq nullptr operator or or_eq private protected public register reinterpret_cast requires
    return short signed sizeof static static_assert static_cast struct switch template this
    thread_local throw true try typedef typeid typename union unsigned using virtual void volatile
    wchar_t while xor xor_eq""".split()
)

# Names the generated code itself uses at function scope, and pto-isa's names it refers to
# (a kernel variable of that name would hide them).
RESERVED = frozenset(
    """args half bfloat16 bfloat16_t min max abs pow pto std Tile TileType GlobalTensor Shape
    Stride BLayout SLayout PadValue Layout RoundMode CompactMode TASSIGN set_flag wait_flag
    pipe_barrier Vec Mat Left Right Acc RowMajor ColMajor NoneBox AICORE""".split()
)
# Families of names: pto-isa's instructions (TADD), pipes and events, the C types (int64_t),
# and the identifiers C++ keeps for the implementation (macros such as __gm__, _Float16).
RESERVED_FORMS = re.compile(r"T[A-Z][A-Z0-9_]*|PIPE_\w+|EVENT_ID\w*|\w+_t|__\w*|_[A-Z]\w*")


def is_reserved(text: str) -> bool:
    return text in CPP_KEYWORDS or text in RESERVED or RESERVED_FORMS.fullmatch(text) is not None
