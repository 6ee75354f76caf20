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
        /// Bytes per IN transfer; nil (the default) picks by what the kernel can do (see
        /// ``USBDeviceHandle/takesBulkTransfersWhole``): 64 KiB where it takes a transfer
        /// whole, else 16 KiB, sdl_core's and the Android reader's size, one usbfs request on
        /// every kernel. Raised to the endpoint's max packet size if that is larger. On
        /// Debian's kernel in the lab, 64 KiB carried an upload from a gadget at the raw
        /// link's rate (docs/benchmarks.md, "Real links").
        public var inTransferSize: Int?
        /// IN transfers kept pending (at least 1).
        public var inTransfersPending: Int = 2
        /// Largest OUT transfer; larger sends are split. nil (the default): 128 KiB where the
        /// kernel takes a transfer whole, else 16 KiB, so that a device taking less than a
        /// transfer (4 KB, say) gets the rest next, in order.
        public var outTransferSize: Int?
        /// OUT transfers in flight at once (at least 1); nil (the default): 2 where the kernel
        /// takes a transfer whole, else 1, since a transfer ending short with another behind
        /// it would leave a hole in the stream.
        public var outTransfersInFlight: Int?
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
