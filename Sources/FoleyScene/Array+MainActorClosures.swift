/// The standard library's closure-taking searches for main-actor code.
///
/// A closure written in main-actor code and handed straight to the standard library (a Swift 5
/// module) checks at run time that it runs on the main actor, each time it is called: once per
/// element of a `removeAll(where:)`, a few hundred instructions each. Handed through these
/// functions (declared in a Swift 6 module) it is not checked again; the compiler has already
/// proved where it runs. They are `@inlinable`, so a caller in another module gets them
/// specialized for its element type: a package function that is not runs the standard library's
/// unspecialized generic code through witness tables, orders of magnitude dearer for a node's
/// voice list pruned at every trigger.
extension Array {
  /// `removeAll(where:)`, for main-actor code.
  @inlinable @inline(__always) package mutating func isolatedRemoveAll(where shouldRemove: (Element) -> Bool)
  {
    removeAll(where: shouldRemove)
  }

  /// `first(where:)`, for main-actor code.
  @inlinable @inline(__always) func isolatedFirst(where predicate: (Element) -> Bool) -> Element? {
    first(where: predicate)
  }

  /// `contains(where:)`, for main-actor code.
  @inlinable @inline(__always) func isolatedContains(where predicate: (Element) -> Bool) -> Bool {
    contains(where: predicate)
  }
}
