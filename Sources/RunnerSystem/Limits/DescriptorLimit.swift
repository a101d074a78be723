import CSystemShims

/// The process's limit on open descriptors.
package enum DescriptorLimit {
    /// Raises the soft limit to the hard one, for runs with thousands of
    /// connections or processes at once; the processes steps start get the
    /// limit promise-run started with. Call once, before any step runs.
    /// Returns the limit now in force (nil if it could not be read).
    @discardableResult
    package static func raise() -> Int? {
        let limit = csh_raise_descriptor_limit()
        return limit < 0 ? nil : limit
    }
}
