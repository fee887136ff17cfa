"""The state's bookkeeping: counter edits, derived views, canonical forms and the memo."""
