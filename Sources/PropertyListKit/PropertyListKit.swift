// PropertyListKit: the one property-list writer, shared by the device model (DeviceKit) and the MobileSync format
// (MobileSyncKit). `PropertyListObject` is a value to be written (ordered dictionaries, NSKeyedArchiver UIDs);
// `BinaryPropertyListWriter` encodes it as `bplist00`; `PropertyListObject(foundation:)` takes a value as Foundation's
// plist API returns one. Foundation's own writer is not used: in a binary with the Swift runtime linked statically
// it refuses any array inside a container ("property lists cannot contain objects of type 'Not A Type'").
