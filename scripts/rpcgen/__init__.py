"""RPC code generator: MOBILE_API.xml -> digest JSON -> Swift. See scripts/generate-rpc."""
