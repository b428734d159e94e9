//! Schemas: canonical normalisation and the per-target transforms.
