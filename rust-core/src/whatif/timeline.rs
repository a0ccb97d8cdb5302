//! Time-bucketed aggregation of a run for the HTML report.
