fn main() {
    println!("propnet: not yet wired");
}
