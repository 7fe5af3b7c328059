// PropertyListKit: the one property-list reader and the one writer, shared by the device model (DeviceKit) and the
// MobileSync format (MobileSyncKit). `PropertyListReader` reads someone else's bytes within `PropertyListLimits`
// (binary ones by `BinaryPropertyListReader`, never Foundation's reader, which expands shared objects while it parses);
// `PropertyListObject` is the value (ordered dictionaries, NSKeyedArchiver UIDs), `foundation` its form as Foundation's
// reader gives it and `PropertyListObject(foundation:)` the way back; `BinaryPropertyListWriter` encodes it as
// `bplist00`. Foundation's own writer is not used: in a binary with the Swift runtime linked statically it refuses any
// array inside a container ("property lists cannot contain objects of type 'Not A Type'").
