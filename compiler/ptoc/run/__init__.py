"""``ptoc run``: execute a kernel on seeded inputs with the reference interpreter and, with
``--sim``, compile its generated CCE C++ against pto-isa's CPU simulator and compare.

numpy is imported inside the functions that need it, so ``check`` and ``compile`` never load it.
"""
