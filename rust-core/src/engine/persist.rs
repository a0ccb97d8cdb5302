//! The engine's side of persistence (`docs/architecture.md#persistence`): when the state file is read
//! and written. The format and its checks live in [`crate::store::state`]; what each
//! owner keeps lives next to it ([`crate::line::LinePool::export`],
//! [`crate::dns::DnsCache::export`]).
//!
//! - **Load** is the first task on the runtime, so `build()` and the first requests never
//!   wait for the disk: until it runs, routing works from the config alone. It restores
//!   statistics only into pools that still exist (same business line, protocol, line id
//!   and origin) and never over a line that already has live data.
//! - **Writes are debounced**: a report, probe result or DNS change only sets a dirty flag;
//!   the first one schedules a flush [`FLUSH_DELAY_MS`] later on the runtime, so the
//!   request path never touches the disk and the file is written at most once per delay.
//!   [`LineKit::close`](super::LineKit::close) writes a final flush synchronously.
//! - A flush never runs before the load (it loads first), never overwrites a file with a
//!   higher sequence ([`crate::store::state::StateStore::save`]), and a write problem
//!   (unwritable directory, full disk) is logged once and otherwise ignored.
//! - HTTPDNS records and quarantine are restored through [`crate::dns::DnsCache::import`],
//!   which rebuilds deadlines from wall-clock receipt time and applies today's address
//!   policy; records from another boot are dropped (network handles are per boot).

use super::Inner;
use crate::dns::DnsImport;
use crate::line::Protocol;
use crate::store::state::{boot_id, PersistedPool, SaveOutcome, StateBody, StateStore};
use parking_lot::Mutex;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Debounce of state writes.
pub const FLUSH_DELAY_MS: u64 = 2_000;

/// The state file and the bookkeeping around it.
pub(super) struct Persistence {
    store: Mutex<StateStore>,
    dirty: AtomicBool,
    /// A write problem was logged (cleared by the next successful write).
    warned: AtomicBool,
    boot_id: Option<String>,
}

impl Persistence {
    /// The state store, locked (no save runs while the guard lives).
    pub(super) fn lock_store(&self) -> parking_lot::MutexGuard<'_, StateStore> {
        self.store.lock()
    }

    pub(super) fn new(dir: &Path) -> Self {
        Persistence {
            store: Mutex::new(StateStore::new(dir)),
            dirty: AtomicBool::new(false),
            warned: AtomicBool::new(false),
            boot_id: boot_id(),
        }
    }
}

impl Inner {
    /// Schedules the load as the first runtime task.
    pub(super) fn schedule_load(self: &Arc<Self>) {
        if self.persist.is_none() {
            return;
        }
        let task = self.task(|inner| inner.load_state());
        self.runtime.schedule_at(self.clock.now_ms(), task);
    }

    /// Reads the state file once and applies it; a bad file is logged and ignored.
    pub(super) fn load_state(&self) {
        let Some(p) = &self.persist else { return };
        let mut store = p.store.lock();
        if store.is_loaded() {
            return;
        }
        let body = match store.load() {
            Ok(Some(body)) => body,
            Ok(None) => return,
            Err(e) => {
                log::warn!("linekit: ignoring the persisted state: {e}");
                return;
            }
        };
        drop(store);
        let (now, wall) = (self.clock.now_ms(), self.clock.wall_ms());
        let state = self.state.load();
        let mut lines = 0;
        for pool in &body.pools {
            let Ok(protocol) = pool.protocol.parse::<Protocol>() else {
                continue;
            };
            if let Some(live) = state
                .topology
                .biz_entry(&pool.biz)
                .and_then(|b| b.pool(protocol))
            {
                lines += live.lock().import(&pool.lines, now, wall);
            }
        }
        let dns = if body.same_boot(p.boot_id.as_deref()) {
            self.dns.import(&body.dns, now, wall)
        } else {
            DnsImport::default()
        };
        log::info!(
            "linekit: restored state: {lines} lines, {} dns records, {} quarantined addresses ({} dropped)",
            dns.records,
            dns.quarantine,
            dns.dropped
        );
    }

    /// Notes that persisted state changed; schedules a flush if none is pending.
    pub(super) fn mark_dirty(self: &Arc<Self>) {
        let Some(p) = &self.persist else { return };
        if p.dirty.swap(true, Ordering::AcqRel) {
            return;
        }
        let task = self.task(|inner| inner.flush_state());
        self.runtime.schedule_in(FLUSH_DELAY_MS, task);
    }

    /// Writes the state now (loading first if the load has not run).
    pub(super) fn flush_state(&self) {
        let Some(p) = &self.persist else { return };
        if !p.store.lock().is_loaded() {
            self.load_state();
        }
        p.dirty.store(false, Ordering::Release);
        let body = self.export_state(p);
        let saved = {
            let mut store = p.store.lock();
            if !self.may_persist() {
                return;
            }
            store.save(body)
        };
        let problem = match saved {
            Ok(SaveOutcome::Written(_)) | Ok(SaveOutcome::NotLoaded) => {
                p.warned.store(false, Ordering::Release);
                return;
            }
            Ok(SaveOutcome::Superseded(seq)) => {
                format!("the state file has newer data (sequence {seq}); not overwriting it")
            }
            Err(e) => format!("cannot persist the state: {e}"),
        };
        if !p.warned.swap(true, Ordering::AcqRel) {
            log::warn!("linekit: {problem}");
        }
    }

    /// The final write of `close`: only if something changed and the load ran.
    pub(super) fn flush_on_close(&self) {
        let Some(p) = &self.persist else { return };
        if p.dirty.load(Ordering::Acquire) && p.store.lock().is_loaded() {
            self.flush_state();
        }
    }

    fn export_state(&self, p: &Persistence) -> StateBody {
        let (now, wall) = (self.clock.now_ms(), self.clock.wall_ms());
        let state = self.state.load();
        let mut pools = Vec::new();
        for biz in &state.topology.biz {
            for protocol in [Protocol::Http, Protocol::Ws] {
                let Some(pool) = biz.pool(protocol) else {
                    continue;
                };
                let lines = pool.lock().export(now, wall);
                if !lines.is_empty() {
                    pools.push(PersistedPool {
                        biz: biz.name.to_string(),
                        protocol: protocol.as_str().to_string(),
                        lines,
                    });
                }
            }
        }
        StateBody {
            saved_seq: 0,
            saved_wall_ms: wall,
            boot_id: p.boot_id.clone(),
            pools,
            dns: self.dns.export(wall, now),
        }
    }
}
