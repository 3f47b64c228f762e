//! A PCIe BAR, memory-mapped: `/sys/bus/pci/devices/<BDF>/resource0` of a
//! PCIe FPGA board carrying the NIC core (or, for tests and VFIO dumps, any
//! file at least as large as the register window).

use crate::{DriverError, RegAccess};
use std::path::{Path, PathBuf};

/// The register window, mapped.
pub struct PcieBar {
    path: PathBuf,
    base: *mut u32,
    len: usize,
    _file: std::fs::File,
}

// The mapping is only touched through &mut self.
unsafe impl Send for PcieBar {}

/// Checks a PCI address `DDDD:BB:DD.F` (the domain may be left out).
pub fn parse_bdf(bdf: &str) -> Result<String, DriverError> {
    let full = if bdf.matches(':').count() == 1 {
        format!("0000:{bdf}")
    } else {
        bdf.to_string()
    };
    let ok = {
        let b = full.as_bytes();
        b.len() == 12
            && b[4] == b':'
            && b[7] == b':'
            && b[10] == b'.'
            && full
                .chars()
                .enumerate()
                .all(|(i, c)| matches!(i, 4 | 7 | 10) || c.is_ascii_hexdigit())
            && (b'0'..=b'7').contains(&b[11])
    };
    if !ok {
        return Err(DriverError::BadValue(format!(
            "PCI address {bdf:?} is not of the form DDDD:BB:DD.F (hex domain, bus, device; function 0-7), e.g. 0000:03:00.0"
        )));
    }
    Ok(full.to_ascii_lowercase())
}

impl PcieBar {
    /// BAR 0 of the PCI device at `bdf`, from sysfs.
    pub fn open_bdf(bdf: &str) -> Result<Self, DriverError> {
        let bdf = parse_bdf(bdf)?;
        let dir = Path::new("/sys/bus/pci/devices").join(&bdf);
        if !dir.exists() {
            return Err(DriverError::NoDevice {
                bdf,
                path: dir.display().to_string(),
            });
        }
        Self::open_file(&dir.join("resource0"))
    }

    /// Maps `path` (a sysfs resource file or any file of the BAR's size).
    pub fn open_file(path: &Path) -> Result<Self, DriverError> {
        let disp = path.display().to_string();
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::PermissionDenied => {
                    DriverError::Permission { path: disp.clone() }
                }
                std::io::ErrorKind::NotFound => DriverError::NoDevice {
                    bdf: "-".into(),
                    path: disp.clone(),
                },
                _ => DriverError::Io {
                    context: format!("opening {disp}"),
                    source: e,
                },
            })?;
        let size = file
            .metadata()
            .map_err(|e| DriverError::Io {
                context: format!("size of {disp}"),
                source: e,
            })?
            .len();
        let need = ldcp_regmap::WINDOW_BYTES as u64;
        if size < need {
            return Err(DriverError::BarTooSmall {
                path: disp,
                size,
                need,
            });
        }
        use std::os::fd::AsRawFd;
        // SAFETY: a shared mapping of `need` bytes of an open file; checked
        // for MAP_FAILED; unmapped in Drop.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                need as usize,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                file.as_raw_fd(),
                0,
            )
        };
        if p == libc::MAP_FAILED {
            let e = std::io::Error::last_os_error();
            return Err(if e.kind() == std::io::ErrorKind::PermissionDenied {
                DriverError::Permission { path: disp }
            } else {
                DriverError::Io {
                    context: format!("mapping {disp}"),
                    source: e,
                }
            });
        }
        Ok(PcieBar {
            path: path.to_path_buf(),
            base: p as *mut u32,
            len: need as usize,
            _file: file,
        })
    }

    fn check(&self, offset: u32) -> Result<usize, DriverError> {
        if !offset.is_multiple_of(4) || offset as usize + 4 > self.len {
            return Err(DriverError::BadValue(format!(
                "register offset {offset:#x} is not a 4-byte aligned offset below {:#x}",
                self.len
            )));
        }
        Ok(offset as usize / 4)
    }
}

impl RegAccess for PcieBar {
    fn read32(&mut self, offset: u32) -> Result<u32, DriverError> {
        let i = self.check(offset)?;
        // SAFETY: i < len/4 inside the live mapping; volatile: device memory.
        Ok(unsafe { std::ptr::read_volatile(self.base.add(i)) })
    }

    fn write32(&mut self, offset: u32, value: u32) -> Result<(), DriverError> {
        let i = self.check(offset)?;
        // SAFETY: as above.
        unsafe { std::ptr::write_volatile(self.base.add(i), value) };
        Ok(())
    }

    fn idle(&mut self, cycles: u64) -> Result<(), DriverError> {
        // the device runs on its own clock (100 MHz): wait as long
        std::thread::sleep(std::time::Duration::from_nanos(cycles * 10));
        Ok(())
    }

    fn describe(&self) -> String {
        format!("pcie: {} ({} bytes mapped)", self.path.display(), self.len)
    }
}

impl Drop for PcieBar {
    fn drop(&mut self) {
        // SAFETY: the mapping made in open_file, unmapped once.
        unsafe {
            libc::munmap(self.base as *mut libc::c_void, self.len);
        }
    }
}
