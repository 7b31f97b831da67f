"""The command-line commands, one module each; `harness.cli` registers them."""
