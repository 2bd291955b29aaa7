//! Dates and times as text, pure: the UTC calendar date of a Unix time, `dd/mm/yyyy` read and
//! written (the demo server's dates), and RFC 3339 timestamps (a transcript's header). No clock:
//! the time is always given.

use std::fmt;

/// A proleptic Gregorian date; ordering is chronological.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Date {
    pub year: i64,
    pub month: u32,
    pub day: u32,
}

impl Date {
    /// The UTC date of a Unix time in seconds.
    pub fn from_unix_seconds(seconds: i64) -> Date {
        // Howard Hinnant's `civil_from_days`.
        let z = seconds.div_euclid(86_400) + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z - era * 146_097;
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = doy - (153 * mp + 2) / 5 + 1;
        let month = if mp < 10 { mp + 3 } else { mp - 9 };
        let year = yoe + era * 400 + i64::from(month <= 2);
        Date {
            year,
            month: u32::try_from(month).unwrap_or(1),
            day: u32::try_from(day).unwrap_or(1),
        }
    }

    /// Parses `dd/mm/yyyy`; `None` unless the text is exactly that shape and a real date.
    pub fn parse_dd_mm_yyyy(text: &str) -> Option<Date> {
        let bytes = text.as_bytes();
        let shaped = bytes.len() == 10
            && bytes[2] == b'/'
            && bytes[5] == b'/'
            && bytes
                .iter()
                .enumerate()
                .all(|(i, b)| i == 2 || i == 5 || b.is_ascii_digit());
        if !shaped {
            return None;
        }
        let day = text[0..2].parse().ok()?;
        let month = text[3..5].parse().ok()?;
        let year = text[6..10].parse().ok()?;
        let date = Date { year, month, day };
        ((1..=12).contains(&month) && (1..=days_in_month(year, month)).contains(&day))
            .then_some(date)
    }
}

fn days_in_month(year: i64, month: u32) -> u32 {
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    match month {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

impl fmt::Display for Date {
    /// `dd/mm/yyyy`, the format of SEP-1303's example.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:02}/{:02}/{:04}", self.day, self.month, self.year)
    }
}

/// Unix milliseconds as RFC 3339 UTC (`2026-11-30T10:00:00.000Z`).
pub fn rfc3339(ms: u64) -> String {
    let seconds = ms / 1000;
    let date = Date::from_unix_seconds(i64::try_from(seconds).unwrap_or(0));
    let of_day = seconds % 86_400;
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
        date.year,
        date.month,
        date.day,
        of_day / 3600,
        of_day / 60 % 60,
        of_day % 60,
        ms % 1000
    )
}

/// Unix milliseconds as a stamp for a file name, UTC, to the millisecond
/// (`20261130-100000-123`): readable, sorted by time, and two saves a second apart or less
/// still get two names.
pub fn file_stamp(ms: u64) -> String {
    let seconds = ms / 1000;
    let date = Date::from_unix_seconds(i64::try_from(seconds).unwrap_or(0));
    let of_day = seconds % 86_400;
    format!(
        "{:04}{:02}{:02}-{:02}{:02}{:02}-{:03}",
        date.year,
        date.month,
        date.day,
        of_day / 3600,
        of_day / 60 % 60,
        of_day % 60,
        ms % 1000
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_stamp_reads_as_the_utc_date_and_time_to_the_millisecond() {
        assert_eq!(file_stamp(1_795_946_400_123), "20261129-100000-123");
        assert_eq!(file_stamp(951_782_400_000), "20000229-000000-000");
    }

    #[test]
    fn rfc3339_dates_are_utc_civil_dates() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339(1_795_946_400_123), "2026-11-29T10:00:00.123Z");
        assert_eq!(rfc3339(951_782_400_000), "2000-02-29T00:00:00.000Z");
    }

    #[test]
    fn unix_time_maps_to_the_utc_calendar() {
        assert_eq!(Date::from_unix_seconds(0).to_string(), "01/01/1970");
        assert_eq!(
            Date::from_unix_seconds(951_782_400).to_string(),
            "29/02/2000"
        );
        assert_eq!(
            Date::from_unix_seconds(1_796_083_199).to_string(),
            "30/11/2026"
        );
        assert_eq!(Date::from_unix_seconds(-1).to_string(), "31/12/1969");
    }

    #[test]
    fn only_real_dd_mm_yyyy_dates_parse() {
        assert_eq!(
            Date::parse_dd_mm_yyyy("12/12/2024"),
            Some(Date {
                year: 2024,
                month: 12,
                day: 12
            })
        );
        assert_eq!(
            Date::parse_dd_mm_yyyy("29/02/2028").map(|d| d.day),
            Some(29)
        );
        for bad in [
            "2024-12-12",
            "1/1/2027",
            "31/02/2027",
            "29/02/2027",
            "00/01/2027",
            "12/13/2027",
            "12/12/2027 ",
            "１2/12/2027",
        ] {
            assert_eq!(Date::parse_dd_mm_yyyy(bad), None, "{bad}");
        }
    }

    #[test]
    fn dates_order_chronologically() {
        let a = Date::parse_dd_mm_yyyy("31/12/2026").unwrap();
        let b = Date::parse_dd_mm_yyyy("01/01/2027").unwrap();
        assert!(a < b);
    }
}
