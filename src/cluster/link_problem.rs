//! Why the broker does not take this PC: what the client's connection and the TLS check
//! (`tls_check`) both report.

use serde::Serialize;

/// Why the broker does not take this PC, in words a technician can act on.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LinkProblem {
    /// `wrong_credentials`, `permission_denied`, `tls_untrusted`, `tls_expired`,
    /// `tls_wrong_name`, `tls` or `unreachable`.
    pub kind: &'static str,
    /// What happened and the fix.
    pub message: String,
}
