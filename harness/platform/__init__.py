"""The platform stage: what harness does with a study on a recruitment platform, whichever it
is. `contract` declares what a platform is and may do, `registry` names the platforms (each a
subpackage of `harness.providers`), and the rest are the study's operations through that
contract: `launch` (and `launch_plan`, `launch_arms`, `places`), `sync`, `review` and its
`actions`, `pause`, `status`, `expire`, and what follows a submission (`verification`,
`settling`, `after_submission`, `background`)."""
