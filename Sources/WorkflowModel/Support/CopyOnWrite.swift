/// A value's fields in one shared box, copied only when written while
/// shared. A step's result and an HTTP exchange pass through several
/// promises on their way to the values and the records, and the records
/// of a 100,000-step run keep them: each copy is one reference count
/// instead of a copy of every field.
@usableFromInline
package struct CopyOnWrite<Fields: Sendable>: Sendable {
    @usableFromInline
    final class Box: @unchecked Sendable {
        // @unchecked: mutated only through a CopyOnWrite holding the one
        // reference (`isKnownUniquelyReferenced`); never changed once shared.
        @usableFromInline
        var fields: Fields

        @inlinable
        init(_ fields: Fields) {
            self.fields = fields
        }
    }

    @usableFromInline
    var box: Box

    // Inlinable, like the subscripts that read through it: a field read
    // from another module is then a load, not a key path walked at run
    // time (which cost an HTTP step 6% of its instructions).
    @inlinable
    package init(_ fields: Fields) {
        box = Box(fields)
    }

    /// All the fields.
    @inlinable
    package var fields: Fields { box.fields }

    /// One field, read or written.
    @inlinable
    package subscript<Field>(field: WritableKeyPath<Fields, Field>) -> Field {
        get { box.fields[keyPath: field] }
        set {
            if !isKnownUniquelyReferenced(&box) { box = Box(box.fields) }
            box.fields[keyPath: field] = newValue
        }
    }

    /// Whether the two are the same box (equal without comparing fields).
    package func isIdentical(to other: CopyOnWrite<Fields>) -> Bool {
        box === other.box
    }
}

extension CopyOnWrite: Equatable where Fields: Equatable {
    @usableFromInline
    package static func == (a: CopyOnWrite, b: CopyOnWrite) -> Bool {
        a.isIdentical(to: b) || a.fields == b.fields
    }
}

extension CopyOnWrite: Hashable where Fields: Hashable {
    @usableFromInline
    package func hash(into hasher: inout Hasher) {
        hasher.combine(fields)
    }
}

/// A value whose fields live in one `CopyOnWrite` box and read and write
/// as its own (`result.stdout`, `info.url`): a conforming type declares
/// its `Fields` and the box, and gets the field access from here.
@dynamicMemberLookup
@usableFromInline
package protocol BoxedFields {
    /// The fields kept in the box.
    associatedtype Fields: Sendable
    /// The box.
    var storage: CopyOnWrite<Fields> { get set }
}

extension BoxedFields {
    /// A field, read or written as the value's own. Inlinable: read from
    /// another module, a field is then a load, not a key path walked at run
    /// time.
    @inlinable
    package subscript<Field>(dynamicMember field: WritableKeyPath<Fields, Field>) -> Field {
        get { storage[field] }
        set { storage[field] = newValue }
    }
}
