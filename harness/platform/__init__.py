"""The platform stage: what harness does with a study on a recruitment platform, whichever it
is. `contract` declares what a platform is and may do, `registry` names the platforms (each a
subpackage of `harness.providers`), and the rest are the study's operations through that
contract: `launch` (and `launch_plan`, `launch_arms`, `places`), `sync` (and `sync_run`),
`review` and its `actions`, `pause`, `status`, `expire`, asking the platform whose an
assignment is (`verification`), and a submission's life after its post (`submissions`)."""
