// FaultError: a fault test's setup found something it did not expect.
struct FaultError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
