"""The recruitment platforms harness can run studies on, one subpackage each: `mturk`,
`prolific`, `link`. A subpackage holds the platform's whole footprint: its `Platform` and
`Provider` (harness's client side, behind `harness.platform.contract`), and where the platform
has one, its `local_service/`: a server of harness's own that imitates the remote platform's
API on loopback, for tests and demos. harness's client code never imports a local service;
it talks to one over HTTP exactly as to the real platform. `harness.platform.registry` names
each subpackage in one line."""
