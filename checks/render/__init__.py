"""Pictures of traces and explored graphs: per-step diffs for the terminal (:mod:`.diff`,
:mod:`.text`), a self-contained HTML viewer (:mod:`.html`), Graphviz DOT (:mod:`.dot`) and
the Informal Trace Format that Apalache and Quint read (:mod:`.itf`)."""
