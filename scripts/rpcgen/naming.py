"""Swift names for spec names.

Rules
-----
Types keep the spec name, except for the renames in TYPE_RENAMES: a spec type is renamed
only when its name is a real collision: a Swift standard library or Foundation top-level
type that apps are likely to have in scope next to SmartDeviceLink, a name this module
already uses, or a name that would be shadowed inside every generated type. The generator
checks every spec name against the lists below and refuses to run when a collision has no
entry in TYPE_RENAMES, so a new spec version cannot introduce a silent clash.

Properties keep the parameter name exactly (it is also the wire name); a name that is a
Swift keyword is written with backticks (`protocol`).

Enum values (static members) are lowerCamelCase made from the element name:
  * An element name containing lower-case letters is already camel case (`alertIcon`,
    `Theora`, `OnHMIStatusID`): only its first character is lower-cased
    (`theora`, `onHMIStatusID`).
  * Otherwise the name is split at `_`, `-`, `.` and spaces; the first word is
    lower-cased, every further word is capitalised and the rest lower-cased
    (`UNSUPPORTED_REQUEST` -> `unsupportedRequest`, `EN-US` -> `enUs`,
    `NON-MEDIA` -> `nonMedia`).
  * When a word ending in a digit is followed by a word starting with a digit, an `_`
    keeps them apart (`GEN3_8-INCH` -> `gen3_8Inch`).
  * A name that would start with a digit gets a leading `_` (`8KHZ` -> `_8khz`,
    `16_BIT` -> `_16Bit`, `2D` -> `_2d`).
  * Keywords get backticks (`DEFAULT` -> `` `default` ``).
  * Names clashing with RPCEnum members (`rawValue`, `knownValues`, `isKnown`,
    `description`) get a `Value` suffix; none do in 8.0.0.
The wire value is always the element name, unchanged.
"""

import re

# spec type name -> (Swift name, why)
TYPE_RENAMES = {
    "Result": ("ResultCode", "`Result` is Swift.Result"),
    "CharacterSet": ("SDLCharacterSet", "`CharacterSet` is Foundation.CharacterSet"),
    "Dimension": ("SDLDimension", "`Dimension` is Foundation.Dimension (units of measure)"),
    "messageType": (
        "MessageType",
        "a type named `messageType` is shadowed by the `messageType` static member of every "
        "message type, and Swift type names are UpperCamelCase",
    ),
}

SWIFT_KEYWORDS = set("""
associatedtype borrowing class consuming deinit enum extension fileprivate func import init
inout internal let nonisolated open operator private precedencegroup protocol public
rethrows static struct subscript typealias var break case catch continue default defer do
else fallthrough for guard if in repeat return throw throws switch where while Any as await
false is nil self Self super true try
""".split())

# Top-level names of the Swift standard library, Foundation and Dispatch that an app may
# have in scope together with SmartDeviceLink. (Not exhaustive for Foundation's NS* types,
# which the spec cannot produce.)
SWIFT_TYPE_NAMES = set("""
Any AnyObject AnyHashable Array ArraySlice Bool Character ClosedRange Codable Collection
Comparable ContiguousArray Decodable Decoder Dictionary Double Duration Encodable Encoder
Equatable Error Float Float16 Float80 Hashable Hasher Identifiable Int Int8 Int16 Int32 Int64
Int128 Iterator Mirror Never Optional Range Result Sendable Sequence Set Slice StaticString
String Substring Task TaskGroup TaskPriority Actor MainActor Clock ContinuousClock
SuspendingClock Instant Type UInt UInt8 UInt16 UInt32 UInt64 UInt128 Unicode UnsafePointer
Void Regex Span Atomic Mutex Numeric Strideable
AffineTransform Bundle Calendar CharacterSet Data Date DateComponents DateFormatter
DateInterval Decimal Dimension FileHandle FileManager Host IndexPath IndexSet JSONDecoder
JSONEncoder Locale Measurement Notification NotificationCenter Operation OperationQueue
Port Process ProcessInfo Progress PropertyListDecoder PropertyListEncoder RunLoop Scanner
Stream Thread TimeInterval TimeZone Timer URL URLComponents URLQueryItem URLRequest
URLResponse URLSession UUID Unit UnitTemperature UnitLength UnitSpeed UserDefaults
NSObject NSString NSNumber NSError NSLock Expression Predicate FormatStyle AttributedString
DispatchQueue DispatchTime DispatchGroup DispatchSemaphore DispatchWorkItem
""".split())

# Names this module defines by hand.
MODULE_TYPE_NAMES = set("""
JSONValue JSONObject JSONParseError RPCMessageType RPCDecodingError RPCValue RPCEnum
RPCStruct RPCMessage RPCRequest RPCResponse RPCNotification RPCCoding RPCSpec
RPCValidationError RPCRegistry
""".split())

# Members every generated type has; parameters must not take these names.
RESERVED_MEMBERS = {"json", "additionalParameters", "bulkData", "hashValue"}
ENUM_RESERVED = {"rawValue", "knownValues", "isKnown", "description", "value"}

PRIMITIVES = {"String": "String", "Integer": "Int", "Float": "Double", "Boolean": "Bool"}


def type_name(spec_name):
    if spec_name in PRIMITIVES:
        return PRIMITIVES[spec_name]
    if spec_name in TYPE_RENAMES:
        return TYPE_RENAMES[spec_name][0]
    return spec_name


def check_type_names(names):
    """Fails when a spec type name collides and has no rename, or a rename is stale."""
    problems = []
    for name in names:
        collides = (name in SWIFT_TYPE_NAMES or name in MODULE_TYPE_NAMES
                    or name in SWIFT_KEYWORDS or not name[:1].isupper())
        if collides and name not in TYPE_RENAMES:
            problems.append(f"spec type {name} collides with a Swift name; add it to TYPE_RENAMES")
    for name in TYPE_RENAMES:
        if name not in names:
            problems.append(f"TYPE_RENAMES has {name}, which the spec no longer defines")
    swift_names = [type_name(n) for n in names]
    dupes = {n for n in swift_names if swift_names.count(n) > 1}
    if dupes:
        problems.append(f"two spec types map to the same Swift name: {sorted(dupes)}")
    if problems:
        raise SystemExit("\n".join(problems))


def identifier(name):
    """A Swift identifier for a property or member: backticks for keywords."""
    if not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", name):
        raise SystemExit(f"parameter name {name!r} is not a Swift identifier")
    return f"`{name}`" if name in SWIFT_KEYWORDS else name


def bare(ident):
    return ident.strip("`")


def enum_case_name(element):
    if re.search(r"[a-z]", element) and not re.search(r"[_\- .]", element):
        result = element[0].lower() + element[1:]
    else:
        words = [w for w in re.split(r"[_\-. ]+", element) if w]
        result = words[0].lower()
        for w in words[1:]:
            piece = w[0].upper() + w[1:].lower()
            if result[-1].isdigit() and piece[0].isdigit():
                result += "_"
            result += piece
    if result[0].isdigit():
        result = "_" + result
    if not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", result):
        raise SystemExit(f"enum element {element!r} gives no Swift identifier ({result!r})")
    if result in ENUM_RESERVED:
        result += "Value"
    return f"`{result}`" if result in SWIFT_KEYWORDS else result
