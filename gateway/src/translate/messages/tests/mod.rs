//! The Messages translation's tests, a file for each thing they test: requests, whole
//! replies, streams and errors.

mod error;
mod reply;
mod request;
mod stream;
