//! Verilating a module into a shared library, and driving its instances.

use super::{parse_ports, CosimError, PortSpec};
use crate::ports::{Port, FLOW_WIDTH};
use std::collections::HashMap;
use std::ffi::{c_char, c_void, CString};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex, OnceLock};

/// Bump when the shim's C ABI changes, so cached libraries are rebuilt.
const SHIM_ABI_VERSION: u32 = 1;

/// The C++ optimisation of every object of a verilated library: the model,
/// Verilator's runtime and the shim. Verilator's makefile compiles the
/// model with its own `OPT_FAST` (`-Os` in 5.006) placed *after* the user's
/// `-CFLAGS`, so an `-O2` there was silently overridden: the makefile
/// variables are set instead. Measured on `nic_system` (median of 3, 10^6
/// cycles, one run of `ldcp bench`): 0.58 M cycles/s with `-Os`, 1.52 M
/// with `-O2`, 1.48 M with `-O3 -march=native`. Part of the cache key.
const CXX_OPT: &str = "-O2";

/// What to verilate: the Verilog, its top module, the port order the model
/// adapter uses, and whether to compile VCD tracing in.
#[derive(Clone, Debug)]
pub struct BuildSpec {
    verilog: Arc<str>,
    module: String,
    inputs: Vec<PortSpec>,
    outputs: Vec<PortSpec>,
    trace: bool,
}

impl BuildSpec {
    /// Checks the declared ports against the Verilog: every input but
    /// `clock` and every output declared exactly once, in either order,
    /// with the declared width (a [`FLOW_WIDTH`] port: the same width as
    /// every other flow-id port of the module, at most 16 bits).
    pub fn new(
        verilog: &str,
        module: &str,
        inputs: &[Port],
        outputs: &[Port],
        trace: bool,
    ) -> Result<Self, CosimError> {
        // a RAM whose read during a write is left undefined reads poison then
        let verilog: &str = &super::rams::poison_unchecked_reads(verilog);
        let ports = parse_ports(verilog, module)?;
        let err = |detail: String| CosimError::Ports {
            module: module.to_string(),
            detail,
        };
        if !ports
            .iter()
            .any(|p| p.input && p.name == "clock" && p.width == 1)
        {
            return Err(err("no 1-bit input `clock`".into()));
        }
        let mut flow_width: Option<u32> = None;
        let mut pick = |decl: &[Port], input: bool| -> Result<Vec<PortSpec>, CosimError> {
            let kind = if input { "input" } else { "output" };
            let mut picked = Vec::new();
            for d in decl {
                let n = d.name;
                let p = ports
                    .iter()
                    .find(|p| p.input == input && p.name == n)
                    .ok_or_else(|| {
                        err(format!(
                            "the model declares {kind} `{n}`, which the module does not have"
                        ))
                    })?;
                if picked.iter().any(|q: &PortSpec| q.name == n) {
                    return Err(err(format!("the model declares {kind} `{n}` twice")));
                }
                let want = if d.width == FLOW_WIDTH {
                    if p.width > crate::FLOW_ID_BITS as u32 {
                        return Err(err(format!(
                            "flow-id {kind} `{n}` is {} bits wide; flow ids have at most {}",
                            p.width,
                            crate::FLOW_ID_BITS
                        )));
                    }
                    *flow_width.get_or_insert(p.width)
                } else {
                    d.width
                };
                if p.width != want {
                    return Err(err(format!(
                        "{kind} `{n}` is {} bits wide in the module, {want} in the model's declaration",
                        p.width
                    )));
                }
                picked.push(p.clone());
            }
            for p in ports
                .iter()
                .filter(|p| p.input == input && p.name != "clock")
            {
                if !decl.iter().any(|d| d.name == p.name) {
                    return Err(err(format!(
                        "{kind} `{}` of the module is not in the model's declaration",
                        p.name
                    )));
                }
            }
            Ok(picked)
        };
        let inputs = pick(inputs, true)?;
        let outputs = pick(outputs, false)?;
        Ok(BuildSpec {
            verilog: verilog.into(),
            module: module.to_string(),
            inputs,
            outputs,
            trace,
        })
    }

    /// The same spec with VCD tracing compiled in.
    pub fn traced(&self) -> Result<Self, CosimError> {
        Ok(BuildSpec {
            trace: true,
            ..self.clone()
        })
    }

    /// The top module.
    pub fn module(&self) -> &str {
        &self.module
    }

    fn key(&self) -> u64 {
        let mut h = crate::Fnv64::default();
        let mut eat = |bytes: &[u8]| {
            h.write(bytes);
            h.write(&[0xff]); // field separator
        };
        eat(self.verilog.as_bytes());
        eat(self.module.as_bytes());
        for p in self.inputs.iter().chain(&self.outputs) {
            eat(p.name.as_bytes());
        }
        eat(&[self.trace as u8]);
        eat(&SHIM_ABI_VERSION.to_le_bytes());
        eat(CXX_OPT.as_bytes());
        // the shim's text: a change to how it steps the model rebuilds too
        eat(self.shim().as_bytes());
        eat(verilator_version().unwrap_or_default().as_bytes());
        h.finish()
    }

    fn shim(&self) -> String {
        let mut apply = String::new();
        for (i, p) in self.inputs.iter().enumerate() {
            apply += &format!(
                "  t->{n} = static_cast<std::remove_reference_t<decltype(t->{n})>>(in[{i}]);\n",
                n = p.name
            );
        }
        let mut sample = String::new();
        for (i, p) in self.outputs.iter().enumerate() {
            sample += &format!("  out[{i}] = static_cast<uint64_t>(t->{});\n", p.name);
        }
        format!(
            r#"// Generated by ldcp-sim's cosim harness for module {module}. Do not edit.
#include <cstdint>
#include <type_traits>
#include "verilated.h"
#include "Vdut.h"
#include "Vdut___024root.h"
#if {trace}
#include "verilated_vcd_c.h"
#endif

namespace {{
struct Handle {{
  VerilatedContext ctx;
  Vdut* top = nullptr;
#if {trace}
  VerilatedVcdC* vcd = nullptr;
#endif
  uint64_t time = 0;
}};

inline void apply(Vdut* t, const uint64_t* in) {{
{apply}}}

inline void sample(Vdut* t, uint64_t* out) {{
{sample}}}

// One eval per cycle instead of two, where the model allows it. Verilator 5
// finds a rising edge by comparing `clock` with the value it kept at the
// last eval (`__Vtrigrprev__TOP__clock`); every eval also re-evaluates the
// logic that depends on the inputs (the `ico` region, ~30% of a cycle), so
// the falling-edge eval costs as much as a third of the cycle and computes
// nothing the rising edge's eval does not compute again. Where that member
// exists (5.006 here) the kept value is set to 0 and the clock is held
// high: the eval then sees the new inputs and the edge, exactly as after
// a falling-edge eval. Elsewhere (another Verilator) the two-eval cycle is
// used. Traced builds always use it, so the VCD shows the clock toggle.
template <typename R, typename = void>
struct SingleEval {{
  static bool arm(R*) {{ return false; }}
}};
template <typename R>
struct SingleEval<R, std::void_t<decltype(std::declval<R&>().__Vtrigrprev__TOP__clock)>> {{
  static bool arm(R* r) {{
    r->__Vtrigrprev__TOP__clock = 0;
    return true;
  }}
}};

inline void step(Handle* h, const uint64_t* in, uint64_t* out) {{
#if !{trace}
  if (SingleEval<Vdut___024root>::arm(h->top->rootp)) {{
    apply(h->top, in);
    h->top->clock = 1;
    h->top->eval();
    sample(h->top, out);
    return;
  }}
#endif
  h->top->clock = 0;
  apply(h->top, in);
  h->top->eval();
#if {trace}
  if (h->vcd) h->vcd->dump(h->time);
#endif
  h->time += 5;
  h->top->clock = 1;
  h->top->eval();
#if {trace}
  if (h->vcd) h->vcd->dump(h->time);
#endif
  h->time += 5;
  sample(h->top, out);
}}
}}  // namespace

extern "C" {{
uint32_t ldcp_cosim_abi(void) {{ return ({abi}u << 24) | ({ni}u << 12) | {no}u; }}

void* ldcp_cosim_new(void) {{
  Handle* h = new Handle;
#if {trace}
  h->ctx.traceEverOn(true);
#endif
  h->top = new Vdut{{&h->ctx}};
  h->top->clock = 0;
  h->top->eval();
  return h;
}}

int ldcp_cosim_trace(void* p, const char* path) {{
#if {trace}
  Handle* h = static_cast<Handle*>(p);
  if (h->vcd) return -2;
  h->vcd = new VerilatedVcdC;
  h->top->trace(h->vcd, 99);
  h->vcd->open(path);
  return h->vcd->isOpen() ? 0 : -3;
#else
  (void)p; (void)path;
  return -1;
#endif
}}

void ldcp_cosim_free(void* p) {{
  Handle* h = static_cast<Handle*>(p);
  h->top->final();
#if {trace}
  if (h->vcd) {{ h->vcd->close(); delete h->vcd; }}
#endif
  delete h->top;
  delete h;
}}

void ldcp_cosim_step(void* p, const uint64_t* in, uint64_t* out) {{
  step(static_cast<Handle*>(p), in, out);
}}

void ldcp_cosim_run(void* p, uint64_t n, const uint64_t* in, uint64_t* out) {{
  Handle* h = static_cast<Handle*>(p);
  for (uint64_t c = 0; c < n; ++c) step(h, in + c * {ni}, out + c * {no});
}}
}}
"#,
            module = self.module,
            trace = self.trace as u8,
            abi = SHIM_ABI_VERSION,
            ni = self.inputs.len(),
            no = self.outputs.len(),
        )
    }
}

/// Removes the build folders (`<name>.tmp-<pid>-<nonce>`) of processes
/// that are gone: a build stopped by Ctrl-C leaves its folder behind (no
/// handler runs), and the next build clears it. A live process's folder is
/// its build in progress, and is left alone.
pub fn remove_abandoned_builds(base: &Path) {
    let Ok(entries) = std::fs::read_dir(base) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some((_, rest)) = name.split_once(".tmp-") else {
            continue;
        };
        let pid = rest.split('-').next().and_then(|p| p.parse::<u32>().ok());
        if let Some(pid) = pid {
            if pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists() {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
    }
}

/// `verilator --version`, once per process.
pub fn verilator_version() -> Result<String, CosimError> {
    static V: OnceLock<Result<String, String>> = OnceLock::new();
    V.get_or_init(|| {
        let out = Command::new("verilator")
            .arg("--version")
            .output()
            .map_err(|e| {
                format!("cannot run `verilator` ({e}): install it with scripts/bootstrap.sh")
            })?;
        if !out.status.success() {
            return Err(format!(
                "`verilator --version` failed: {}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
    })
    .clone()
    .map_err(CosimError::Tool)
}

fn verilator_root() -> Result<PathBuf, CosimError> {
    let out = Command::new("verilator")
        .args(["--getenv", "VERILATOR_ROOT"])
        .output()
        .map_err(|e| {
            CosimError::Tool(format!(
                "cannot run `verilator` ({e}): install it with scripts/bootstrap.sh"
            ))
        })?;
    let root = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    if !out.status.success() || !root.join("include").join("verilated.h").is_file() {
        return Err(CosimError::Tool(format!(
            "`verilator --getenv VERILATOR_ROOT` gave {} which has no include/verilated.h",
            root.display()
        )));
    }
    Ok(root)
}

fn run_tool(cmd: &mut Command, what: &str) -> Result<(), CosimError> {
    crate::tools::run(cmd, what)
        .map(|_| ())
        .map_err(|e| CosimError::Tool(e.0))
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> CosimError + '_ {
    move |source| CosimError::Io {
        path: path.to_path_buf(),
        source,
    }
}

type NewFn = unsafe extern "C" fn() -> *mut c_void;
type FreeFn = unsafe extern "C" fn(*mut c_void);
type StepFn = unsafe extern "C" fn(*mut c_void, *const u64, *mut u64);
type RunFn = unsafe extern "C" fn(*mut c_void, u64, *const u64, *mut u64);
type TraceFn = unsafe extern "C" fn(*mut c_void, *const c_char) -> i32;
type AbiFn = unsafe extern "C" fn() -> u32;

/// A verilated module, loaded.
pub struct VerilatedLib {
    _lib: libloading::Library,
    new: NewFn,
    free: FreeFn,
    step: StepFn,
    run: RunFn,
    trace: TraceFn,
    inputs: Vec<PortSpec>,
    outputs: Vec<PortSpec>,
    path: PathBuf,
}

impl VerilatedLib {
    /// Builds the library for `spec`, or loads it from the cache: once per
    /// process (threads asking for the same library wait for one build and
    /// share it), and on disk across processes.
    pub fn build(spec: &BuildSpec) -> Result<Arc<Self>, CosimError> {
        type Slot = Arc<Mutex<Option<Arc<VerilatedLib>>>>;
        static LOADED: OnceLock<Mutex<HashMap<String, Slot>>> = OnceLock::new();
        let name = format!(
            "{}-{:016x}{}",
            spec.module,
            spec.key(),
            if spec.trace { "-trace" } else { "" }
        );
        let slot: Slot = {
            let mut all = LOADED
                .get_or_init(Default::default)
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            all.entry(name.clone()).or_default().clone()
        };
        let mut slot = slot.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(lib) = slot.as_ref() {
            return Ok(lib.clone());
        }
        let lib = Self::build_on_disk(spec, &name)?;
        *slot = Some(lib.clone());
        Ok(lib)
    }

    fn build_on_disk(spec: &BuildSpec, name: &str) -> Result<Arc<Self>, CosimError> {
        let base = crate::work_dir().join("cosim");
        let dir = base.join(name);
        let so = dir.join("libdut.so");
        if !so.is_file() {
            std::fs::create_dir_all(&base).map_err(io(&base))?;
            // one build per library across processes: a process that finds
            // another building it waits for that build (an advisory lock on
            // `<name>.lock`, released when its holder ends, even by a
            // crash) instead of compiling the same C++ beside it
            let lock_path = base.join(format!("{name}.lock"));
            let lock = std::fs::File::create(&lock_path).map_err(io(&lock_path))?;
            lock.lock().map_err(io(&lock_path))?;
            if so.is_file() {
                return Self::load(spec, &so);
            }
            remove_abandoned_builds(&base);
            let nonce = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.subsec_nanos())
                .unwrap_or(0);
            let tmp = base.join(format!("{name}.tmp-{}-{nonce}", std::process::id()));
            let built = Self::compile(spec, &tmp);
            match built {
                Ok(()) => {
                    // another process may have won the race: keep theirs
                    if std::fs::rename(&tmp, &dir).is_err() && so.is_file() {
                        let _ = std::fs::remove_dir_all(&tmp);
                    }
                }
                Err(e) => {
                    let _ = std::fs::remove_dir_all(&tmp);
                    return Err(e);
                }
            }
        }
        Self::load(spec, &so)
    }

    fn compile(spec: &BuildSpec, dir: &Path) -> Result<(), CosimError> {
        let root = verilator_root()?;
        let obj = dir.join("obj");
        std::fs::create_dir_all(&obj).map_err(io(&obj))?;
        let v = dir.join(format!("{}.v", spec.module));
        std::fs::write(&v, spec.verilog.as_bytes()).map_err(io(&v))?;
        let shim = dir.join("shim.cpp");
        std::fs::write(&shim, spec.shim()).map_err(io(&shim))?;
        let mut verilate = Command::new("verilator");
        verilate
            .args([
                "--cc",
                "--build",
                "-j",
                "2",
                "-O3",
                "--x-assign",
                "fast",
                "--x-initial",
                "fast",
            ])
            .args(["--prefix", "Vdut", "--top-module", &spec.module])
            .args(["-CFLAGS", "-fPIC"])
            .arg("-MAKEFLAGS")
            .arg(format!("OPT_FAST={CXX_OPT} OPT_GLOBAL={CXX_OPT}"))
            .arg("--Mdir")
            .arg(&obj);
        if spec.trace {
            verilate.arg("--trace");
        }
        verilate.arg(&v);
        run_tool(&mut verilate, "verilator")?;
        // Verilator's runtime, compiled by its own makefile rules (with -fPIC)
        let mut runtime = vec!["verilated.o", "verilated_threads.o"];
        if spec.trace {
            runtime.push("verilated_vcd_c.o");
        }
        run_tool(
            Command::new("make")
                .arg("-C")
                .arg(&obj)
                .args(["-f", "Vdut.mk", "-j", "2"])
                .arg(format!("OPT_FAST={CXX_OPT}"))
                .arg(format!("OPT_GLOBAL={CXX_OPT}"))
                .args(&runtime),
            "make (Verilator runtime)",
        )?;
        let inc = root.join("include");
        let mut link = Command::new("g++");
        link.args(["-shared", "-fPIC", CXX_OPT, "-std=c++17", "-o"])
            .arg(dir.join("libdut.so"))
            .arg(format!("-I{}", obj.display()))
            .arg(format!("-I{}", inc.display()))
            .arg(format!("-I{}", inc.join("vltstd").display()))
            .arg(&shim)
            .arg(obj.join("Vdut__ALL.a"))
            .args(runtime.iter().map(|o| obj.join(o)))
            .arg("-pthread");
        run_tool(&mut link, "g++ (linking the verilated model)")
    }

    fn load(spec: &BuildSpec, so: &Path) -> Result<Arc<Self>, CosimError> {
        let tool =
            |e: libloading::Error| CosimError::Tool(format!("loading {}: {e}", so.display()));
        // SAFETY: the library is the one just built from our own shim; the
        // symbol types below are the shim's C signatures.
        unsafe {
            let lib = libloading::Library::new(so).map_err(tool)?;
            let abi: AbiFn = *lib.get::<AbiFn>(b"ldcp_cosim_abi\0").map_err(tool)?;
            let want = (SHIM_ABI_VERSION << 24)
                | ((spec.inputs.len() as u32) << 12)
                | spec.outputs.len() as u32;
            if abi() != want {
                return Err(CosimError::Tool(format!(
                    "{} has ABI {:#x}, expected {want:#x}: delete it to rebuild",
                    so.display(),
                    abi()
                )));
            }
            let new = *lib.get::<NewFn>(b"ldcp_cosim_new\0").map_err(tool)?;
            let free = *lib.get::<FreeFn>(b"ldcp_cosim_free\0").map_err(tool)?;
            let step = *lib.get::<StepFn>(b"ldcp_cosim_step\0").map_err(tool)?;
            let run = *lib.get::<RunFn>(b"ldcp_cosim_run\0").map_err(tool)?;
            let trace = *lib.get::<TraceFn>(b"ldcp_cosim_trace\0").map_err(tool)?;
            Ok(Arc::new(VerilatedLib {
                _lib: lib,
                new,
                free,
                step,
                run,
                trace,
                inputs: spec.inputs.clone(),
                outputs: spec.outputs.clone(),
                path: so.to_path_buf(),
            }))
        }
    }

    /// Input ports in the adapter's order.
    pub fn inputs(&self) -> &[PortSpec] {
        &self.inputs
    }

    /// Output ports in the adapter's order.
    pub fn outputs(&self) -> &[PortSpec] {
        &self.outputs
    }

    /// Where the library is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A fresh instance at power-up (all registers at their initial values).
    pub fn instance(self: &Arc<Self>) -> Instance {
        // SAFETY: `new` returns an owned handle, freed in Drop.
        let handle = unsafe { (self.new)() };
        Instance {
            lib: Arc::clone(self),
            handle,
        }
    }
}

/// One simulated instance of a verilated module.
pub struct Instance {
    lib: Arc<VerilatedLib>,
    handle: *mut c_void,
}

// The handle is only used through &mut self.
unsafe impl Send for Instance {}

impl Instance {
    /// One clock cycle: apply `inputs` with the clock low, raise the clock,
    /// read `outputs`.
    pub fn step(&mut self, inputs: &[u64], outputs: &mut [u64]) {
        assert_eq!(inputs.len(), self.lib.inputs.len(), "input vector length");
        assert_eq!(
            outputs.len(),
            self.lib.outputs.len(),
            "output vector length"
        );
        // SAFETY: lengths checked above; the handle is live.
        unsafe { (self.lib.step)(self.handle, inputs.as_ptr(), outputs.as_mut_ptr()) }
    }

    /// `n` cycles in one call: `inputs` holds `n` rows of inputs, `outputs`
    /// receives `n` rows of outputs.
    pub fn run(&mut self, n: usize, inputs: &[u64], outputs: &mut [u64]) {
        assert_eq!(inputs.len(), n * self.lib.inputs.len(), "input matrix size");
        assert_eq!(
            outputs.len(),
            n * self.lib.outputs.len(),
            "output matrix size"
        );
        // SAFETY: sizes checked above; the handle is live.
        unsafe { (self.lib.run)(self.handle, n as u64, inputs.as_ptr(), outputs.as_mut_ptr()) }
    }

    /// Starts writing a VCD (only on a traced build).
    pub fn trace_to(&mut self, path: &Path) -> Result<(), String> {
        let c = CString::new(path.to_string_lossy().as_bytes()).map_err(|e| e.to_string())?;
        // SAFETY: the handle is live; the string outlives the call.
        match unsafe { (self.lib.trace)(self.handle, c.as_ptr()) } {
            0 => Ok(()),
            -1 => Err("this library was built without --trace".into()),
            -2 => Err("a trace is already open".into()),
            e => Err(format!("cannot open {} for the VCD ({e})", path.display())),
        }
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        // SAFETY: the handle came from `new` and is freed once.
        unsafe { (self.lib.free)(self.handle) }
    }
}
