extension USBTransport {
    /// How the transport picks its interface and endpoints.
    public enum EndpointSelection: Sendable, Hashable {
        /// The first vendor-specific (class 0xFF) interface that has a bulk IN and a bulk
        /// OUT endpoint; for TDKs and bridges.
        case vendorInterface
        /// The first IN and the first OUT endpoint of any interface, as sdl_core does for
        /// phones in accessory mode (the transfer type is not checked).
        case firstInAndOut
    }

    /// Tuning; the defaults follow sdl_core where it has a value.
    public struct Options: Sendable, Hashable {
        /// The configuration to use (sdl_core: 1).
        public var configuration: UInt8 = 1
        /// Which endpoints carry SDL (default: the vendor interface's bulk pair).
        public var endpoints: EndpointSelection = .vendorInterface
        /// Bytes per IN transfer (sdl_core and the Android reader: 16 KiB). Raised to the
        /// endpoint's max packet size if that is larger. 16 KiB is one usbfs URB on every
        /// kernel: above it libusb may split a transfer into several URBs, and where the
        /// kernel cannot end them together (umockdev, old kernels) a short packet mid-way
        /// reorders what follows. On Debian's kernel in the lab, 64 KiB carried an upload from a
        /// gadget at the raw link's rate (docs/benchmarks.md, "Real links").
        public var inTransferSize: Int = 16_384
        /// IN transfers kept pending (at least 1).
        public var inTransfersPending: Int = 2
        /// Largest OUT transfer; larger sends are split. 16 KiB is what usbfs takes as one
        /// URB without bulk continuation, so a short write is never in the middle of a
        /// transfer (a device that takes 4 KB a transfer gets the rest in order).
        public var outTransferSize: Int = 16_384
        /// Timeout of each OUT transfer; nil waits forever (sdl_core uses none).
        public var sendTimeout: Duration? = .seconds(5)
        /// How long ``USBTransport/close()`` waits for cancelled transfers to come back.
        public var cancelGrace: Duration = .seconds(2)
        /// How long ``USBTransport/open()`` waits for a matching device to be plugged in
        /// (hotplug); nil fails at once when none is there.
        public var waitForDevice: Duration?

        /// sdl_core-like defaults, a 5 s send timeout, vendor-interface endpoints.
        public init() {}
    }
}
