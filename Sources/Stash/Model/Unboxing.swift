/// The value an `Any` holds, known to be a `Value`: read straight out of the existential
/// when it holds exactly a `Value` kept in its inline buffer, else cast with `as!`.
///
/// Values cross between objects and the context as `Any` (`ManagedObject.value(atSlot:)`,
/// `setValue(_:inSlot:)`), and every comparison, save and write of one takes it out again. `as!` goes through the runtime's general cast,
/// about 280 instructions even when the types are the same; this is about ten. The layout
/// it reads is the Swift ABI's: an `Any` is three words of buffer and the type's metadata,
/// and the value sits at the start of the buffer when the type's value witnesses say it is
/// stored inline (no `IsNonInline` flag), which is the rule the runtime itself boxes by.
///
/// Unsafe by construction; justified by stash-bench under callgrind (20,000 records): see
/// "Reading values out of `Any`" in Benchmarks/README.md.
@inlinable @inline(__always)
func unboxed<Value>(_ value: Any, as type: Value.Type = Value.self) -> Value {
    if MemoryLayout<Value>.size <= 3 * MemoryLayout<Int>.size,
        MemoryLayout<Value>.alignment <= MemoryLayout<Int>.alignment
    {
        let inline: Value? = withUnsafePointer(to: value) { pointer in
            let container = UnsafeRawPointer(pointer)
            return inlineValue(in: container, as: Value.self)
        }
        if let inline { return inline }
    }
    return value as! Value
}

/// The `Value` in the `Any` (or `Any?`) at `container` when it holds exactly a `Value` kept
/// in its inline buffer; `nil` otherwise. The caller checks `Value`'s size and alignment fit
/// the buffer. An `Any?` that is `nil` has no type there (a type's metadata is never a
/// value `Optional` uses for `nil`), so it is never taken for a value.
@inlinable @inline(__always)
func inlineValue<Value>(in container: UnsafeRawPointer, as type: Value.Type) -> Value? {
    let metadata = unsafeBitCast(Value.self as Any.Type, to: UnsafeRawPointer.self)
    guard container.load(fromByteOffset: existentialTypeOffset, as: UInt.self) == UInt(bitPattern: metadata),
        isStoredInline(metadata)
    else { return nil }
    return container.load(as: Value.self)
}

/// Where an `Any`'s type metadata is: after its three-word inline buffer.
@usableFromInline let existentialTypeOffset = 3 * MemoryLayout<Int>.size

/// Whether the runtime keeps values of the type `metadata` describes in an existential's
/// inline buffer: the value witness table (the word before the metadata) has no
/// `IsNonInline` (0x20000) in its flags, which follow its eight functions, size and stride.
@inlinable @inline(__always)
func isStoredInline(_ metadata: UnsafeRawPointer) -> Bool {
    let witnesses = metadata.load(fromByteOffset: -MemoryLayout<Int>.size, as: UnsafeRawPointer.self)
    let flags = witnesses.load(fromByteOffset: 10 * MemoryLayout<Int>.size, as: UInt32.self)
    return flags & 0x0002_0000 == 0
}
