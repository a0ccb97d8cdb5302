//! The privacy consent gate (`docs/architecture.md#consent`) and [`LineKit::clear_data`].
//!
//! With [`super::LineKitBuilder::require_consent`], the engine sends nothing of its own
//! until [`LineKit::grant_consent`]: no probe, no HTTPDNS query, no config fetch, and a
//! diagnosis is refused ([`crate::Error::ConsentRequired`]). Routing never waits for
//! consent: requests are routed from what is local (the app's config, the last good
//! config, the persisted state), and lookups answer from the cache or send the caller to
//! the system resolver.
//!
//! The gate sits where own traffic begins (a detect being requested or run, an HTTPDNS
//! refresh being queued, a config fetch round starting) and, as a backstop, in
//! [`Inner::start_request`], which hands the bookkeeping of a request it refuses back to
//! its owner. Granting starts what `build()` would have started (the start-up detect after
//! its delay, the pre-resolve list, the first fetch round); revoking stops new own traffic
//! again (requests already sent finish).
//!
//! The consent flag belongs to the requests service and the `cleared` flag to the shared
//! context; both are atomics, not locks, so the gates can be checked under any lock.
//! [`LineKit::clear_data`] takes the publication lock and then the state file's, in rank
//! order, so no config is being persisted and no state flush is writing while the
//! directory is emptied.

use super::requests::Pending;
use super::{Inner, LineKit};
use crate::detect::Trigger;
use crate::Result;
use std::sync::atomic::Ordering;
use std::sync::Arc;

impl LineKit {
    /// The user accepted the privacy policy: the engine may send its own requests from now
    /// on (the start-up detect, pre-resolve and first config fetch follow).
    pub fn grant_consent(&self) {
        let inner = &self.inner;
        if inner.requests.set_consent(true) || !inner.is_open() {
            return;
        }
        log::info!("linekit: consent granted");
        if inner.requests.has_transport() {
            inner.trigger_every_biz(Trigger::Startup);
            inner.pre_resolve();
            inner.resume_remote();
        }
    }

    /// The user withdrew consent: the engine starts no request of its own until
    /// [`Self::grant_consent`] (requests already sent finish). Routing is unaffected.
    pub fn revoke_consent(&self) {
        if self.inner.requests.set_consent(false) {
            log::info!("linekit: consent revoked");
        }
    }

    /// Whether the engine may send its own requests (always, unless built with
    /// [`super::LineKitBuilder::require_consent`] and not granted).
    pub fn consent_granted(&self) -> bool {
        self.inner.consented()
    }

    /// Deletes everything the engine persisted: the files of
    /// [`crate::store::PERSISTED_FILES`] in its storage directory (the last good config and
    /// the highest version accepted, the state file, the install seed) and temp files of
    /// interrupted writes to them. Anything else in the directory, and the directory
    /// itself, stays. From then on this engine writes nothing there; the next engine built on the
    /// directory starts as a new install. Without a storage directory there is nothing to
    /// delete.
    pub fn clear_data(&self) -> Result<()> {
        let inner = &self.inner;
        inner.cleared.store(true, Ordering::Release);
        let Some(dir) = &inner.storage_dir else {
            return Ok(());
        };
        // A config being installed or a state flush finishes before the files go.
        let _config = inner.remote.serialise();
        let _state = inner.persist.as_ref().map(|p| p.lock_store());
        crate::store::clear_files(dir, &crate::store::PERSISTED_FILES)
    }
}

impl Inner {
    /// Whether own requests may be sent now.
    pub(super) fn consented(&self) -> bool {
        self.requests.consented()
    }

    /// Whether files may still be written ([`LineKit::clear_data`] was not called).
    pub(super) fn may_persist(&self) -> bool {
        !self.cleared.load(Ordering::Acquire)
    }

    /// Gives back the bookkeeping of a request that was not sent (consent missing): a
    /// detect's probe count, an HTTPDNS round's hosts, a config fetch round.
    pub(super) fn release_unsent(self: &Arc<Self>, pending: Pending) {
        match pending {
            Pending::Probe { biz, .. } => self.release_probe(&biz),
            Pending::HttpDns(query) => self.release_query(query),
            Pending::Config { round, .. } => self.release_round(round),
            // A warm holds nothing back: its budget token is spent either way.
            Pending::Warm { .. } => {}
        }
    }
}
