"""Crowd platforms: the provider interface (`provider`), MTurk as its first provider (`mturk`,
through boto3), MTurk's fees (`pricing`), the local MTurk-compatible service (`mturk_local`),
and what runs a study on a provider: `launch`, `sync`, `review`, `status`, `expire`."""
