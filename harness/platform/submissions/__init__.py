"""A submission's life, from the post of its answers to what screening decided done on the
platform, in the order it happens:

1. quarantine: a task page posts its answers; the task server (`harness.web.tasks`) checks
   them and, the platform not vouching yet, keeps them apart
   (`harness.store.quarantine`), with a recheck scheduled (`harness.store.rechecks`);
2. verify: the platform is asked whose the assignment is (`harness.platform.verification`),
   by the rechecks (`rechecks.Rechecks`, a thread per task server process) or by sync
   (`harness.platform.sync`), which reads the platform's own record;
3. settle: verified, refused or still pending, any number of claims at once, a single one a
   batch of one (`settling.settle`);
4. store: a verified claim's answers become the assignment's judgments, exactly once
   (`harness.store.submissions`);
5. screen: live screening scores every stored assignment not screened yet
   (`after_submission.screen`, `harness.screening.live`), once per study for everything
   stored meanwhile (`background.BackgroundHook` in a task server, once per run in sync);
6. decide: screening stores its decisions (`harness.store.decisions`);
7. act: the pending decisions are carried out on the platform (`after_submission.
   screen_and_act`, `harness.platform.decisions.apply_pending_decisions`).

What a stopped process left (unscreened assignments, decisions half done) is made good by
`after_submission.catch_up`, which a task server runs on start and every few seconds
(`background.Sweep`). The study travels as a `LaunchedStudy` where the caller has read it,
so no step reads it again.
"""
