"""Render a loaded spec into work: the HIT plan, the order each worker sees, the pages and the
platform's question documents."""
