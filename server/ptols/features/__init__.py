"""One module per LSP feature; each reads ptoc's analysis, none reimplements the compiler."""
