//! The edges: everything that touches the outside world. No chess and no rules here.
