//! Reading the tool files named on the command line.

use std::fs;
use std::io::{IsTerminal, Read as _};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use toolbridge::{Format, Limits, ReadOptions, FORMATS};

use crate::cli::InputArgs;

/// The inputs that could be read, and the errors of those that could not.
pub struct Inputs {
    /// What reading each input produced (its origin is the file name as
    /// given, or `<stdin>`).
    pub reads: Vec<toolbridge::Read>,
    pub errors: Vec<anyhow::Error>,
}

/// How the inputs are read: detected, as one format, or as Emacs Lisp
/// functions (`--from defun`).
#[derive(Clone, Copy)]
enum Source {
    Detected,
    Format(Format),
    Defuns,
}

/// Reads every file (directories: their tool files, sorted by name).
pub fn load(args: &InputArgs) -> Result<Inputs> {
    let from = match args.from.as_deref() {
        None => Source::Detected,
        Some("defun") => Source::Defuns,
        Some(id) => Source::Format(Format::from_id(id)?),
    };
    let only = args.only.as_deref();
    let limits = Limits::default();
    let mut inputs = Inputs {
        reads: Vec::new(),
        errors: Vec::new(),
    };
    let stdin = [PathBuf::from("-")];
    let files = if args.files.is_empty() {
        if std::io::stdin().is_terminal() {
            bail!("no input: name tool files or directories, or pipe a document into standard input");
        }
        &stdin[..]
    } else {
        &args.files[..]
    };
    let mut absent = Vec::new();
    for path in expand(files)? {
        match read_one(&path, from, only, &limits) {
            Ok(read) => inputs.reads.push(read),
            // `--from defun --only NAME` reads only that function: a file
            // without it is not an error when another file has it.
            Err(err) if only.is_some() && is_not_a_tool(&err) => absent.push(err),
            Err(err) => inputs.errors.push(err),
        }
    }
    if let Some(name) = only {
        match from {
            Source::Defuns if inputs.reads.is_empty() => inputs.errors.extend(absent),
            Source::Defuns => {}
            _ => {
                if let Err(err) = toolbridge::keep_only(&mut inputs.reads, name) {
                    inputs.reads.clear();
                    inputs.errors.push(err.into());
                }
            }
        }
    }
    Ok(inputs)
}

fn is_not_a_tool(err: &anyhow::Error) -> bool {
    err.downcast_ref::<toolbridge::Error>()
        .is_some_and(|err| err.kind() == toolbridge::ErrorKind::NotATool)
}

fn expand(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            let mut entries: Vec<PathBuf> = fs::read_dir(path)
                .with_context(|| format!("cannot list the directory {}", path.display()))?
                .filter_map(|entry| entry.ok().map(|entry| entry.path()))
                .filter(|entry| entry.is_file() && is_tool_file(entry))
                .collect();
            entries.sort();
            if entries.is_empty() {
                bail!(
                    "the directory {} holds no tool files (*.json, *.el, *.R)",
                    path.display()
                );
            }
            files.extend(entries);
        } else {
            files.push(path.clone());
        }
    }
    Ok(files)
}

fn is_tool_file(path: &Path) -> bool {
    let hidden = path
        .file_name()
        .and_then(|name| name.to_str())
        .is_some_and(|name| name.starts_with('.'));
    let extension = path.extension().and_then(|ext| ext.to_str()).unwrap_or("");
    !hidden
        && FORMATS
            .iter()
            .any(|info| info.extension.eq_ignore_ascii_case(extension))
}

fn read_one(path: &Path, from: Source, only: Option<&str>, limits: &Limits) -> Result<toolbridge::Read> {
    let stdin = path == Path::new("-");
    let origin = if stdin {
        "<stdin>".to_string()
    } else {
        path.display().to_string()
    };
    let text = if stdin {
        let mut text = String::new();
        std::io::stdin()
            .take(limits.max_bytes as u64 + 1)
            .read_to_string(&mut text)
            .context("cannot read standard input")?;
        text
    } else {
        let size = fs::metadata(path)
            .with_context(|| format!("cannot read {origin}"))?
            .len();
        if size > limits.max_bytes as u64 {
            bail!("{origin} is {size} bytes; the limit is {}", limits.max_bytes);
        }
        fs::read_to_string(path).with_context(|| format!("cannot read {origin}"))?
    };
    let options = ReadOptions::default()
        .with_limits(limits.clone())
        .with_origin(origin.clone());
    Ok(match from {
        Source::Defuns => toolbridge::Read::from_defuns(&text, only, &options)?,
        Source::Format(format) => toolbridge::read(&text, &options.with_from(format))?,
        Source::Detected => toolbridge::read(&text, &options)?,
    })
}

/// Reads a provider's whole response (a file, or stdin) as JSON, with its
/// name for messages and its provider: `provider` when named, else the one
/// whose shape it has.
pub fn read_response(
    path: Option<&Path>,
    provider: Option<&str>,
    limits: &Limits,
) -> Result<(String, serde_json::Value, Format)> {
    let (origin, text) = read_text(path, limits)?;
    let response: serde_json::Value =
        serde_json::from_str(&text).with_context(|| format!("{origin} is not JSON"))?;
    let provider = match provider {
        Some(id) => Format::from_id(id)?,
        None => Format::detect_response(&response).with_context(|| {
            format!("{origin}: not a response shape of any provider; name one with --provider")
        })?,
    };
    Ok((origin, response, provider))
}

/// Reads a whole document (a file, or stdin for `-` or no path) within the
/// size limit, with its name for messages.
pub fn read_text(path: Option<&Path>, limits: &Limits) -> Result<(String, String)> {
    let (origin, reader) = open_bytes(path)?;
    let mut text = String::new();
    reader
        .take(limits.max_bytes as u64 + 1)
        .read_to_string(&mut text)
        .with_context(|| format!("cannot read {origin}"))?;
    if text.len() > limits.max_bytes {
        bail!("{origin} is larger than {} bytes", limits.max_bytes);
    }
    Ok((origin, text))
}

/// Opens a file, or stdin for `-` or no path (refused when stdin is a
/// terminal and no path was given), with its name for messages.
pub fn open_bytes(path: Option<&Path>) -> Result<(String, Box<dyn std::io::Read>)> {
    match path {
        Some(path) if path != Path::new("-") => {
            let file = fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
            Ok((path.display().to_string(), Box::new(file)))
        }
        None if std::io::stdin().is_terminal() => {
            bail!("no input: name a file, or pipe one into standard input")
        }
        _ => Ok(("<stdin>".to_string(), Box::new(std::io::stdin()))),
    }
}

/// Call options that map names back through `tools` as written for `provider`.
pub fn call_options(tools: &[PathBuf], provider: Format) -> Result<toolbridge::call::CallOptions> {
    let options = toolbridge::call::CallOptions::default();
    if tools.is_empty() {
        return Ok(options);
    }
    let inputs = load(&InputArgs::files(tools.to_vec()))?;
    if let Some(err) = inputs.errors.into_iter().next() {
        return Err(err.context("cannot read the --tools files"));
    }
    let read: Vec<toolbridge::Tool> = inputs
        .reads
        .iter()
        .flat_map(|read| read.ok_tools().cloned())
        .collect();
    let written = toolbridge::write(&read, provider, &toolbridge::WriteOptions::default());
    let inverses: Vec<toolbridge::Inverse> = written.tools.into_iter().map(|tool| tool.inverse).collect();
    Ok(options.with_inverses(&inverses))
}
