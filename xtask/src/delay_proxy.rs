//! `cargo xtask delay-proxy`: a TCP proxy that holds every chunk of bytes
//! for a fixed delay before passing it on, in each direction, so that a
//! database on this host costs what one on another host does (a round trip
//! gains twice the delay). For measurements where the kernel has no `netem`
//! queueing discipline to add the delay itself.
//!
//! Each connection gets four threads: a reader and a writer per direction.
//! A reader stamps each chunk with the time it may leave; its writer sleeps
//! until then, so chunks keep their order and a burst is delayed once, not
//! once per chunk.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

pub fn delay_proxy(options: &[&str]) -> Result<(), String> {
    let mut listen = None;
    let mut to = None;
    let mut delay = None;
    let mut rest = options.iter();
    while let Some(option) = rest.next() {
        let value = rest
            .next()
            .ok_or_else(|| format!("{option} needs a value"))?;
        match *option {
            "--listen" => listen = Some(value.to_string()),
            "--to" => to = Some(value.to_string()),
            "--delay-us" => {
                let us: u64 = value
                    .parse()
                    .map_err(|e| format!("--delay-us {value}: {e}"))?;
                delay = Some(Duration::from_micros(us));
            }
            other => return Err(format!("delay-proxy: unknown option {other}")),
        }
    }
    let (Some(listen), Some(to), Some(delay)) = (listen, to, delay) else {
        return Err("delay-proxy needs --listen ADDR --to ADDR --delay-us N".into());
    };
    let listener = TcpListener::bind(&listen).map_err(|e| format!("listen on {listen}: {e}"))?;
    eprintln!(
        "delay-proxy: {listen} -> {to}, {} us each way",
        delay.as_micros()
    );
    for client in listener.incoming() {
        let client = match client {
            Ok(client) => client,
            Err(e) => {
                eprintln!("delay-proxy: accept: {e}");
                continue;
            }
        };
        let to = to.clone();
        thread::spawn(move || {
            if let Err(e) = connect(client, &to, delay) {
                eprintln!("delay-proxy: {e}");
            }
        });
    }
    Ok(())
}

fn connect(client: TcpStream, to: &str, delay: Duration) -> Result<(), String> {
    let server = TcpStream::connect(to).map_err(|e| format!("connect to {to}: {e}"))?;
    for stream in [&client, &server] {
        stream.set_nodelay(true).map_err(|e| e.to_string())?;
    }
    let clone = |s: &TcpStream| s.try_clone().map_err(|e| e.to_string());
    pipe(clone(&client)?, clone(&server)?, delay);
    pipe(server, client, delay);
    Ok(())
}

/// Copies `from` to `to`, each chunk held for `delay`; ends both ways when
/// either side does.
fn pipe(mut from: TcpStream, mut to: TcpStream, delay: Duration) {
    let (chunks, delayed) = mpsc::channel::<(Instant, Vec<u8>)>();
    thread::spawn(move || {
        let mut buffer = vec![0u8; 64 * 1024];
        loop {
            match from.read(&mut buffer) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if chunks
                        .send((Instant::now() + delay, buffer[..n].to_vec()))
                        .is_err()
                    {
                        break;
                    }
                }
            }
        }
        let _ = from.shutdown(Shutdown::Read);
    });
    thread::spawn(move || {
        for (due, chunk) in delayed {
            if let Some(wait) = due.checked_duration_since(Instant::now()) {
                thread::sleep(wait);
            }
            if to.write_all(&chunk).is_err() {
                break;
            }
        }
        let _ = to.shutdown(Shutdown::Write);
    });
}
