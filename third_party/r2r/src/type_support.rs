//! Message type support handles obtained at run time.
//!
//! (arnie patch, see `third_party/r2r/PATCH.md`.)

use r2r_rcl::rosidl_message_type_support_t;
use std::ffi::c_void;

/// A message type support handle found at run time, e.g. with `dlopen` from a package's
/// `lib<pkg>__rosidl_typesupport_c.so` and its
/// `rosidl_typesupport_c__get_message_type_support_handle__<pkg>__msg__<Type>` function,
/// as rosbag2 does. The library it came from must stay loaded while the handle is used.
#[derive(Debug, Clone, Copy)]
pub struct TypeSupport(*const rosidl_message_type_support_t);

// The handle points at immutable static data in the loaded library.
unsafe impl Send for TypeSupport {}
unsafe impl Sync for TypeSupport {}

impl TypeSupport {
    /// Wrap a `const rosidl_message_type_support_t *`.
    ///
    /// # Safety
    /// `ptr` must be a valid, non-null message type support handle that stays valid
    /// (its library loaded) for as long as any publisher or subscription made with it.
    pub unsafe fn from_raw(ptr: *const c_void) -> Self {
        TypeSupport(ptr as *const rosidl_message_type_support_t)
    }

    pub(crate) fn as_ptr(&self) -> *const rosidl_message_type_support_t {
        self.0
    }
}
