import PromiseEngine

/// The version of promise-run and its PromiseEngine library.
package enum PromiseRunVersion {
    package static let current = "0.1.0"
}
